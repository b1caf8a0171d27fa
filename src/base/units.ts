/**
 * Values in units chosen for their magnitude, the way pprof and speedscope print them: TIME
 * metrics (microseconds as TAU stores them) as ns, µs, ms or s, counts with k, M, G. One module
 * for the report, the diff, the viewer page (web/ bundles this file) and the exports' headers, so
 * the same value reads the same everywhere. `--units` (the viewer's unit switch) forces one time
 * unit; a forced unit prints every value in it with thousands separators, and counts unscaled.
 * No Node.js imports: the page bundles this file.
 */

/** What `--units` accepts: `auto` (by magnitude) or one time unit. */
export const UNIT_CHOICES = ['auto', 'ns', 'us', 'ms', 's'] as const;
export type UnitChoice = (typeof UNIT_CHOICES)[number];

/** Each time unit: its symbol and how many microseconds one of it is. */
const TIME_UNITS: Record<Exclude<UnitChoice, 'auto'>, { symbol: string; usec: number }> = {
  ns: { symbol: 'ns', usec: 1e-3 },
  us: { symbol: 'µs', usec: 1 },
  ms: { symbol: 'ms', usec: 1e3 },
  s: { symbol: 's', usec: 1e6 },
};

const ALIASES: Record<string, UnitChoice> = { µs: 'us', usec: 'us', msec: 'ms', sec: 's', nsec: 'ns' };

/** `--units` text → choice; undefined for anything else (the caller names the option in its error). */
export function parseUnits(text: string): UnitChoice | undefined {
  const t = text.trim().toLowerCase();
  if ((UNIT_CHOICES as readonly string[]).includes(t)) return t as UnitChoice;
  return ALIASES[t];
}

/** TAU's time metrics hold microseconds (TIME, CPU_TIME, TAU_MPI_TIME ...); any other metric is a count. */
export function isTimeMetricName(metric: string): boolean {
  return /TIME/i.test(metric);
}

/** The time unit for a magnitude in microseconds: the largest unit the value is at least 1 of. */
export function timeUnitFor(usec: number, force: UnitChoice = 'auto'): { symbol: string; usec: number } {
  if (force !== 'auto') return TIME_UNITS[force];
  const a = Math.abs(usec);
  if (a >= 1e6) return TIME_UNITS.s;
  if (a >= 1e3) return TIME_UNITS.ms;
  if (a >= 1 || a === 0) return TIME_UNITS.us;
  return TIME_UNITS.ns;
}

/** Thousands separators and at most three decimals (what a forced unit prints). */
export function grouped(v: number): string {
  return v.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** Three significant digits below 1,000 (`1.35`, `52.3`, `845`), whole numbers with separators above. */
export function short(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return grouped(Math.round(v));
  let s = v.toPrecision(3);
  if (s.includes('e')) s = String(Number(s));
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/** A time in microseconds: `1.35 s`, `52.3 ms`, `845 µs`, `120 ns` (or in the forced unit). */
export function formatTime(usec: number, force: UnitChoice = 'auto'): string {
  const u = timeUnitFor(usec, force);
  const v = usec / u.usec;
  return `${force === 'auto' ? short(v) : grouped(v)} ${u.symbol}`;
}

const COUNT_STEPS: Array<[number, string]> = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** A count: `845`, `12.3 k`, `4.56 M` (unscaled with separators when a unit is forced). */
export function formatCount(n: number, force: UnitChoice = 'auto'): string {
  if (force !== 'auto') return grouped(n);
  const a = Math.abs(n);
  for (const [step, suffix] of COUNT_STEPS) if (a >= step) return `${short(n / step)} ${suffix}`;
  return Number.isInteger(n) ? String(n) : short(n);
}

/** A value of a metric with its unit: time metrics by formatTime, others by formatCount. */
export function formatMetric(v: number, metric: string, force: UnitChoice = 'auto'): string {
  return isTimeMetricName(metric) ? formatTime(v, force) : formatCount(v, force);
}

/**
 * One unit for a whole column (a table reads best when its rows share a unit): chosen from the
 * column's largest magnitude. `label` names it in a header (`ms`, or `counts`); `scale` divides a
 * stored value into it.
 */
export function columnUnit(largest: number, metric: string, force: UnitChoice = 'auto'): { label: string; scale: number } {
  if (!isTimeMetricName(metric)) return { label: 'counts', scale: 1 };
  const u = timeUnitFor(largest, force);
  return { label: u.symbol, scale: u.usec };
}

/** TAU pprof's words for the time units of its columns (`msec`, `usec`), and `counts`. */
export function pprofWord(label: string): string {
  return ({ ns: 'nsec', µs: 'usec', ms: 'msec', s: 'sec' } as Record<string, string>)[label] ?? label;
}

/** Bytes in B (with separators), KiB, MiB or GiB by size, one decimal: `19.5 KiB`. */
export function formatBytes(b: number): string {
  if (b >= 2 ** 30) return `${(b / 2 ** 30).toFixed(1)} GiB`;
  if (b >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  if (b >= 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${grouped(Math.round(b))} B`;
}
