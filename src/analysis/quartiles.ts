/**
 * The distribution of one value over many ranks in bounded memory: the exact count, least and most
 * (with the rank of each), and the quartiles from a sketch (DDSketch, within QUARTILE_ACCURACY of
 * the exact order statistic; about 2 KB whatever the number of values), for views that give five
 * figures over 100,000 ranks instead of 100,000 rows.
 */
import { DDSketch } from '@datadog/sketches-js';

/** Relative error of a quartile against the exact value of rank q × (n − 1), rounded down. */
export const QUARTILE_ACCURACY = 0.01;

export interface Quartiles {
  n: number;
  min: number;
  minAt: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  maxAt: number;
}

export class Distribution {
  private readonly sketch = new DDSketch({ relativeAccuracy: QUARTILE_ACCURACY });
  private n = 0;
  private min = Infinity;
  private max = -Infinity;
  private minAt = -1;
  private maxAt = -1;

  /** Ties: the lowest rank for the least, the highest for the most (as mpi-fold.ts). */
  add(v: number, rank: number): void {
    this.n++;
    // The sketch takes values of one sign; a share a rounding left below zero counts as zero there
    // (the exact least is kept beside it, and quartiles never fall outside it).
    this.sketch.accept(Math.max(0, v));
    if (v < this.min || (v === this.min && rank < this.minAt)) [this.min, this.minAt] = [v, rank];
    if (v > this.max || (v === this.max && rank > this.maxAt)) [this.max, this.maxAt] = [v, rank];
  }

  quartiles(): Quartiles | undefined {
    if (this.n === 0) return undefined;
    const at = (q: number) => Math.min(this.max, Math.max(this.min, this.sketch.getValueAtQuantile(q)));
    return { n: this.n, min: this.min, minAt: this.minAt, q1: at(0.25), median: at(0.5), q3: at(0.75), max: this.max, maxAt: this.maxAt };
  }
}
