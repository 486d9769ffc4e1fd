import { describe, expect, it } from 'vitest';
import { chartSpec, lineChart, MAX_POINTS, SMOOTH_ABOVE } from './plot.ts';

describe('chartSpec', () => {
  it('drops non-finite points and gives a flat line a range instead of a single value', () => {
    const spec = chartSpec({
      title: 't',
      yLabel: 'y',
      series: [
        {
          name: 'kl',
          points: [
            [1, 0],
            [2, Number.NaN],
            [3, 0],
          ],
        },
      ],
    }) as unknown as { data: { values: unknown[] }; encoding: { y: { scale: unknown } } };
    expect(spec.data.values).toEqual([
      { step: 1, value: 0, series: 'kl' },
      { step: 3, value: 0, series: 'kl' },
    ]);
    expect(spec.encoding.y.scale).toEqual({ domain: [0, 1] });
  });

  it('thins long curves to at most MAX_POINTS points, keeping the first and the last', () => {
    const points = Array.from({ length: 2 * MAX_POINTS + 1 }, (_, step): [number, number] => [
      step,
      step / 10,
    ]);
    const spec = chartSpec({ title: 't', yLabel: 'y', series: [{ name: 's', points }] }) as unknown as {
      data: { values: { step: number }[] };
    };
    const steps = spec.data.values.map((value) => value.step);
    expect(steps.length).toBeLessThanOrEqual(MAX_POINTS + 1);
    expect(steps.slice(0, 3)).toEqual([0, 3, 6]);
    expect(steps.at(-1)).toBe(2 * MAX_POINTS);
  });

  it('draws curves longer than SMOOTH_ABOVE points as a trailing mean over the faint raw values', async () => {
    const points = Array.from({ length: SMOOTH_ABOVE + 1 }, (_, step): [number, number] => [step, step % 2]);
    const options = { title: 'Reward', yLabel: 'reward', series: [{ name: 'reward/mean', points }] };
    const spec = chartSpec(options) as unknown as {
      title: { subtitle: string };
      layer: { transform?: { frame: number[] }[] }[];
    };
    expect(spec.title.subtitle).toBe('faint: every value; bold: mean of the last 5 points');
    expect(spec.layer).toHaveLength(2);
    expect(spec.layer[1].transform?.[0].frame).toEqual([-4, 0]);
    const svg = await lineChart(options);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('>reward/mean</text>');
  });
});
