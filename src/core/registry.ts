// A named registry: each extension point (task, reward, selector, scaffold, advantage, loss) has one,
// filled explicitly in its folder's index.ts. Lookups of unknown names fail with the list of known names.
// Each entry remembers where it came from ('built-in' for the folder's own entries, or the place a user's
// plug-in was registered from, src/api/register.ts), so registering a taken name names both.
import { ConfigError, UnknownNameError } from './errors.ts';

/** Where an entry came from: 'built-in', or a user's registration (e.g. a file and line). */
export type RegistryOrigin = string;

export class Registry<T> {
  private readonly entries = new Map<string, T>();
  private readonly origins = new Map<string, RegistryOrigin>();

  constructor(readonly kind: string) {}

  register(name: string, entry: T, origin: RegistryOrigin = 'built-in'): this {
    const existing = this.origins.get(name);
    if (existing !== undefined) {
      throw new ConfigError(
        `${this.kind} '${name}' is already registered (${existing}); cannot register it again (${origin}): choose another name`,
      );
    }
    this.entries.set(name, entry);
    this.origins.set(name, origin);
    return this;
  }

  get(name: string): T {
    const entry = this.entries.get(name);
    if (entry === undefined) {
      throw new UnknownNameError(`unknown ${this.kind} '${name}'; known: ${this.names().join(', ')}`);
    }
    return entry;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Where `name` was registered from; undefined when it is not registered. */
  origin(name: string): RegistryOrigin | undefined {
    return this.origins.get(name);
  }

  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}
