// Which runs belong together: runs that differ only in their seed (and name, runs directory) form one
// group. By default the group label is built from the config keys whose values differ between runs
// (e.g. `selector.name=bots`); `by` names the keys explicitly.

/** Config keys never used to group runs: they differ between seeds of one setting by design. */
const IGNORED = new Set(['name', 'seed', 'runsDir']);

export interface RunIdentity {
  name: string;
  config: unknown;
}

export interface Grouping {
  /** The config keys the labels are made of (dot paths). */
  keys: string[];
  /** Run name → group label. */
  labels: Map<string, string>;
}

/** Flattens a config to dot paths → JSON text of each leaf (arrays count as leaves). */
export function flattenConfig(
  config: unknown,
  prefix = '',
  out = new Map<string, string>(),
): Map<string, string> {
  if (config !== null && typeof config === 'object' && !Array.isArray(config)) {
    for (const [key, value] of Object.entries(config)) {
      flattenConfig(value, prefix === '' ? key : `${prefix}.${key}`, out);
    }
  } else if (prefix !== '') {
    out.set(prefix, JSON.stringify(config));
  }
  return out;
}

/** Groups runs by `by` (dot paths into the config), or by every key that differs when `by` is empty. */
export function groupRuns(runs: readonly RunIdentity[], by: readonly string[] = []): Grouping {
  const flat = runs.map((run) => flattenConfig(run.config));
  let keys = [...by];
  if (keys.length === 0) {
    const all = new Set(flat.flatMap((entries) => [...entries.keys()]));
    keys = [...all]
      .filter((key) => !IGNORED.has(key.split('.')[0]))
      .filter((key) => new Set(flat.map((entries) => entries.get(key) ?? 'absent')).size > 1)
      .sort();
  }
  // With several keys, a key is left out of a run's label where the run has the value most runs have
  // (a strict majority): `algorithm.dynamicSampling.enabled=true selector.name=uniform`, not every
  // filter's off switch on every label. Two runs that differ at a key cannot both hold its majority value,
  // so labels stay distinct; a run at the majority everywhere keeps the full label.
  const majority = new Map<string, string>();
  if (by.length === 0 && keys.length > 1) {
    for (const key of keys) {
      const counts = new Map<string, number>();
      for (const entries of flat) {
        const value = entries.get(key) ?? 'absent';
        counts.set(value, (counts.get(value) ?? 0) + 1);
      }
      for (const [value, count] of counts) if (count * 2 > runs.length) majority.set(key, value);
    }
  }
  const labels = new Map<string, string>();
  runs.forEach((run, index) => {
    if (keys.length === 0) {
      labels.set(run.name, 'all runs');
      return;
    }
    const own = keys.filter((key) => majority.get(key) !== (flat[index].get(key) ?? 'absent'));
    const shown = own.length > 0 ? own : keys;
    const parts = shown.map((key) => {
      const text = flat[index].get(key);
      const value = text === undefined ? 'default' : display(text);
      // A lone string value (a selector name) reads on its own; numbers and booleans need their key.
      const bare = keys.length === 1 && text !== undefined && typeof JSON.parse(text) === 'string';
      return bare ? value : `${key}=${value}`;
    });
    labels.set(run.name, parts.join(' '));
  });
  return { keys, labels };
}

function display(json: string): string {
  const value = JSON.parse(json) as unknown;
  return typeof value === 'string' ? value : json;
}
