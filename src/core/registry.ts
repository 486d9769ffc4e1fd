// A named registry: each extension point (task, reward, selector, scaffold, advantage, loss, policy
// backend) has one. Registries are instances: `createDefaultRegistries()` (src/training/registries.ts)
// builds fresh ones, each filled explicitly by its folder's `create…Registry()`; nothing is filled by an
// import. A folder's exported default (e.g. `selectors`) is a lazy instance: `fill` runs on first use, so
// importing the package registers nothing. Lookups of unknown names fail with the list of known names.
// Each entry remembers where it came from ('built-in' for the folder's own entries, or the place a user's
// plug-in was registered from, src/api/register.ts), so registering a taken name names both; and, when it
// was defined with one of the define* wrappers (src/core/plugin.ts), its plug-in description, which the
// method index (docs/methods.md) prints.
// A module that runs again in the same process (hot reload, a watcher that re-imports: the package's
// registries, loaded once, outlive the module) registers its names again, and that replaces the entry
// instead of failing: a registration replaces one from the same origin (the same call, or an origin
// string given twice), or, for origins 'registered at <file>:<line>:<col>' (src/api/register.ts), one
// from the same file under another query string (hot reloaders import a changed module again as
// `<file>?t=…`; an edit may have moved the call to another line). The same file registering a name twice
// in one run (same URL, two calls) still fails. A built-in is never replaced.
import { ConfigError, UnknownNameError } from './errors.ts';
import type { Plugin, PluginInfo } from './plugin.ts';

/** Where an entry came from: 'built-in', or a user's registration (e.g. a file and line). */
export type RegistryOrigin = string;

export class Registry<T> {
  private readonly entries = new Map<string, T>();
  private readonly origins = new Map<string, RegistryOrigin>();
  private readonly infos = new Map<string, PluginInfo>();
  private fill: ((registry: Registry<T>) => void) | undefined;

  /** `fill` (optional) registers the built-in entries, on first use of the registry. */
  constructor(
    readonly kind: string,
    fill?: (registry: Registry<T>) => void,
  ) {
    this.fill = fill;
  }

  /** Runs the pending fill once (before any read or write, so built-ins come first). */
  private filled(): this {
    const fill = this.fill;
    if (fill !== undefined) {
      this.fill = undefined;
      fill(this);
    }
    return this;
  }

  register(name: string, entry: T, origin: RegistryOrigin = 'built-in', info?: PluginInfo): this {
    this.filled();
    const existing = this.origins.get(name);
    if (existing !== undefined && !sameSource(existing, origin)) {
      throw new ConfigError(
        `${this.kind} '${name}' is already registered (${existing}); cannot register it again (${origin}): choose another name`,
      );
    }
    this.entries.set(name, entry);
    this.origins.set(name, origin);
    if (info !== undefined) this.infos.set(name, info);
    else this.infos.delete(name);
    return this;
  }

  /** Registers a defined plug-in (src/core/plugin.ts): its `create` under its `id`. */
  add(plugin: Plugin<T>, origin: RegistryOrigin = 'built-in'): this {
    return this.register(plugin.id, plugin.create, origin, plugin);
  }

  get(name: string): T {
    const entry = this.filled().entries.get(name);
    if (entry === undefined) {
      throw new UnknownNameError(`unknown ${this.kind} '${name}'; known: ${this.names().join(', ')}`);
    }
    return entry;
  }

  has(name: string): boolean {
    return this.filled().entries.has(name);
  }

  /** Where `name` was registered from; undefined when it is not registered. */
  origin(name: string): RegistryOrigin | undefined {
    return this.filled().origins.get(name);
  }

  /** The plug-in description of `name`; undefined when unknown or registered without one. */
  info(name: string): PluginInfo | undefined {
    return this.filled().infos.get(name);
  }

  names(): string[] {
    return [...this.filled().entries.keys()].sort();
  }
}

/** Whether a registration from `origin` re-registers one from `existing` (see the file's comment). */
function sameSource(existing: RegistryOrigin, origin: RegistryOrigin): boolean {
  if (existing === 'built-in') return false;
  if (existing === origin) return true;
  const before = callSite(existing);
  const now = callSite(origin);
  return before !== null && now !== null && before.file === now.file && before.query !== now.query;
}

/** The file and query string ('' when none) of a 'registered at <url>:<line>:<col>' origin; else null. */
function callSite(origin: RegistryOrigin): { file: string; query: string } | null {
  const location = /^registered at (.+):\d+:\d+$/.exec(origin)?.[1];
  if (location === undefined) return null;
  const query = location.search(/[?#]/);
  return query < 0
    ? { file: location, query: '' }
    : { file: location.slice(0, query), query: location.slice(query) };
}
