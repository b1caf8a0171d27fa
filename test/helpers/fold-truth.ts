/**
 * The known truth of the folding tests (test/fold.test.ts, test/node-fold.test.ts): an instance that
 * spins in `first` for its first 30 % and in `second` for the rest, with pauses in `outside` between
 * instances. Checked on one class of a fold report: `first` on top of every bin before 25 %,
 * `second` after 35 %, `second` first leads at 30 % ± 5 (within one bin of 5 %), and `outside` never
 * folded. Bins with fewer than 5 samples say nothing either way.
 */
import type { ExecutionContext } from 'ava';
import type { FoldClass } from '../../src/report/fold.js';

export function checkFoldTruth(t: ExecutionContext, c: FoldClass, first: string, second: string, outside: string): void {
  const top = (b: number) => c.bins[b].functions[0]?.name;
  for (let b = 0; b < c.bins.length; b++) {
    const bin = c.bins[b];
    t.false(bin.functions.some((f) => f.name === outside), `bin ${bin.from} %: the pause was folded`);
    if (bin.samples < 5) continue;
    if (bin.to <= 25) t.is(top(b), first, `bin ${bin.from}-${bin.to} %: ${JSON.stringify(bin.functions)}`);
    if (bin.from >= 35) t.is(top(b), second, `bin ${bin.from}-${bin.to} %: ${JSON.stringify(bin.functions)}`);
  }
  const at = c.bins.findIndex((bin) => bin.functions[0]?.name === second && bin.samples >= 5);
  t.true(at >= 0 && Math.abs(c.bins[at].from - 30) <= 5, `${second} first leads at ${c.bins[at]?.from} %`);
}
