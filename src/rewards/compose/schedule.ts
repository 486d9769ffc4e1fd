// Piecewise-linear weight schedules over training steps, for progressive reward shaping (a part's weight
// ramps up or down as training goes on, e.g. format weight 1 → 0 over the first 200 steps). Before the
// first point the weight is the first point's, after the last point the last's; between two points it is
// interpolated linearly. No single paper's code is followed: this is the generic schedule the issue asks for.
import { ConfigError } from '../../core/errors.ts';

export interface SchedulePoint {
  step: number;
  weight: number;
}

/** Checks that steps strictly increase; throws ConfigError naming `source`. */
export function checkSchedule(points: readonly SchedulePoint[], source: string): void {
  if (points.length === 0) throw new ConfigError(`${source}: a schedule needs at least one point`);
  for (let i = 1; i < points.length; i++) {
    if (!(points[i].step > points[i - 1].step)) {
      throw new ConfigError(
        `${source}: schedule steps must strictly increase, got ${points[i - 1].step} then ${points[i].step}`,
      );
    }
  }
}

/** The schedule's weight at `step`. */
export function scheduleWeight(points: readonly SchedulePoint[], step: number): number {
  if (step <= points[0].step) return points[0].weight;
  const last = points[points.length - 1];
  if (step >= last.step) return last.weight;
  let i = 1;
  while (points[i].step < step) i++;
  const left = points[i - 1];
  const right = points[i];
  const t = (step - left.step) / (right.step - left.step);
  return left.weight + t * (right.weight - left.weight);
}
