// A named registry: each extension point (task, reward, selector, scaffold, advantage, loss) has one,
// filled explicitly in its folder's index.ts. Lookups of unknown names fail with the list of known names.
import { UnknownNameError } from './errors.ts';

export class Registry<T> {
  private readonly entries = new Map<string, T>();

  constructor(readonly kind: string) {}

  register(name: string, entry: T): this {
    if (this.entries.has(name)) throw new Error(`${this.kind} '${name}' is already registered`);
    this.entries.set(name, entry);
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

  names(): string[] {
    return [...this.entries.keys()].sort();
  }
}
