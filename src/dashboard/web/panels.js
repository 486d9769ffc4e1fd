// Which metric keys go in which panel: a registry of [pattern, panel id] tried in order; a key no pattern
// claims goes to a panel named after its first path segment. Held-out rates get one panel per metric@k and
// task (a line per level); per-level practice shares one panel; phase timings one panel.
const PANELS = [
  [/^reward\/(mean|correct|std|solved_group_frac)$/, () => 'reward'],
  [/^eval\/(pass|maj)@\d+$/, () => 'held-out (all tasks)'],
  [/^eval\/((?:pass|maj)@\d+)\/(.+)\/[^/]+$/, (m) => `held-out ${m[1]}: ${m[2]}`],
  [/^(losses\/(approx_kl|ppo_kl)|mismatch\/k[13]_kl)$/, () => 'KL'],
  [/^entropy$/, () => 'entropy'],
  [/^response\/length/, () => 'response length'],
  [/^losses\/clipfrac/, () => 'clip fractions'],
  [/^train\/grad_norm$/, () => 'grad norm'],
  [/^selection\/share\//, () => 'practice share per level'],
  [/^selection\/reward\//, () => 'practice reward per level'],
  [/^perf\/time\//, () => 'phase timings (s)'],
  [/^perf\/share\//, () => 'phase shares'],
  // Selector.inspect() values (src/core/selector.ts), curriculum/state/<selector>/<quantity>/<arm>: one
  // panel per quantity (Q-values, posterior means, α, β have different scales).
  [/^curriculum\/state\/([^/]+)\/([^/]+)\//, (m) => `selector state: ${m[1]} ${m[2]}`],
  [/^curriculum\/state\/([^/]+)/, (m) => `selector state: ${m[1]}`],
  [/^curriculum\/.+\/prob$/, () => 'selector state: level probabilities'],
];

/** [panel id, keys] in registry order (unclaimed prefixes last), then by name. */
export function panelsFor(keys) {
  const panels = new Map();
  for (const key of keys) {
    let id = null;
    let rank = PANELS.length;
    for (const [index, [pattern, name]] of PANELS.entries()) {
      const match = pattern.exec(key);
      if (match) {
        id = name(match);
        rank = index;
        break;
      }
    }
    if (id === null) id = key.split('/')[0];
    if (!panels.has(id)) panels.set(id, { rank, keys: [] });
    panels.get(id).keys.push(key);
  }
  return [...panels]
    .sort(([a, pa], [b, pb]) => pa.rank - pb.rank || byName(a).localeCompare(byName(b)))
    .map(([id, { keys: members }]) => [id, members]);
}

// pass@k panels before maj@k panels of the same rank.
function byName(id) {
  return id.replace('maj@', '~maj@');
}
