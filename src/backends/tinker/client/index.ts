// The Tinker client backend: PolicyBackend over a Tinker-compatible HTTP service (docs/tinker-client.md).
export { type TinkerBackendDeps, TinkerPolicyBackend } from './backend.ts';
export { checkLossConformance, conformanceLosses, type LossConformance } from './conformance.ts';
export { TinkerCallError, TinkerUnreachableError } from './http.ts';
export { linearLossMappings } from './linear-loss.ts';
export { type LossProbe, probeLosses, tinkerLossNames } from './loss-probe.ts';
export { normaliseTinkerUrl, parseTinkerClientOptions, type TinkerClientOptions } from './options.ts';
export type { TinkerCapabilities } from './session.ts';
