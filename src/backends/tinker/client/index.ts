// The Tinker client backend: PolicyBackend over a Tinker-compatible HTTP service (docs/tinker-client.md).
export { type TinkerBackendDeps, TinkerPolicyBackend } from './backend.ts';
export { TinkerCallError, TinkerUnreachableError } from './http.ts';
export { linearLossMappings } from './linear-loss.ts';
export { normaliseTinkerUrl, parseTinkerClientOptions, type TinkerClientOptions } from './options.ts';
export type { TinkerCapabilities } from './session.ts';
