// Policy addresses: one resolver maps every way of naming a policy to its backend. A bare id
// (`embedded`, `tinker`: a train config's `policy.backend`), or `scheme:address`: `tinker://HOST:PORT`
// and `http(s)://…` name a Tinker-compatible service (`curricula train --policy`), `openai:URL[#model]`
// a sampling-only OpenAI-compatible server (`curricula eval --policy`). The backends that build them:
// src/training/policy-backends.ts (embedded, tinker) and src/backends/openai/policy-spec.ts (openai).

/** What a policy address names: the backend, and the address inside that backend's scheme (if any). */
export interface PolicyAddress {
  /** The backend id: 'embedded', 'tinker', or a sampling-only scheme ('openai'). */
  backend: string;
  /** The rest: a URL for tinker and openai; undefined for a bare id. */
  address?: string;
}

/** Schemes that are spellings of another backend: a Tinker service is reached over http(s) too. */
const schemeAliases: Readonly<Record<string, string>> = { http: 'tinker', https: 'tinker' };

/**
 * The one resolver of policy names: a bare id (`embedded`, `tinker`), `tinker://HOST:PORT` and
 * `http(s)://…` (→ tinker, address = the whole URL), `openai:URL[#model]` (→ openai, address = URL#model),
 * or any `<scheme>:<address>` (→ that scheme). Does not check that the backend exists: the registry
 * lookup that follows names the known ones.
 */
export function resolvePolicyAddress(spec: string): PolicyAddress {
  const colon = spec.indexOf(':');
  if (colon <= 0) return { backend: spec };
  const scheme = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  if (rest.startsWith('//')) return { backend: schemeAliases[scheme] ?? scheme, address: spec };
  return { backend: schemeAliases[scheme] ?? scheme, address: rest };
}
