// Student's t against tabulated values (R's qt / pt, to the digits printed there).
import { describe, expect, it } from 'vitest';
import { tQuantile975 } from './stats.ts';
import { tCdf, tQuantile } from './student-t.ts';

describe("Student's t", () => {
  it('quantiles match the tables', () => {
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(tQuantile(0.975, 10)).toBeCloseTo(2.228139, 5);
    expect(tQuantile(0.8, 10)).toBeCloseTo(0.8790578, 5);
    expect(tQuantile(0.95, 5)).toBeCloseTo(2.015048, 5);
    expect(tQuantile(0.9, 3)).toBeCloseTo(1.637744, 5);
    expect(tQuantile(0.025, 4)).toBeCloseTo(-2.776445, 5);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 4);
  });

  it('agrees with the 0.975 table of stats.ts for df 1..30', () => {
    for (let df = 1; df <= 30; df++) expect(tQuantile(0.975, df)).toBeCloseTo(tQuantile975(df), 2);
  });

  it('the CDF inverts the quantile and is symmetric', () => {
    expect(tCdf(2.228139, 10)).toBeCloseTo(0.975, 6);
    expect(tCdf(0, 7)).toBeCloseTo(0.5, 12);
    expect(tCdf(-1.5, 6) + tCdf(1.5, 6)).toBeCloseTo(1, 12);
    expect(tQuantile(0, 3)).toBeNaN();
    expect(tQuantile(0.5, 0)).toBeNaN();
  });
});
