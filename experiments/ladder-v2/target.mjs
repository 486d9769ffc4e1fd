// Issue 28's ladder target, read from pass@1 per level: ≥ 4 levels in [0.1, 0.7], a level ≥ 0.9, a level at 0.
export function meetsTarget(passAt1) {
  const band = passAt1.filter((p) => p >= 0.1 && p <= 0.7).length;
  const top = Math.max(...passAt1);
  const zero = passAt1.some((p) => p === 0);
  return { band, top, zero, ok: band >= 4 && top >= 0.9 && zero };
}
