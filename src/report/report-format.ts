/**
 * Number formatting of the terminal report, modelled on TAU's pprof so that a TAU user reads the
 * columns the way they are used to: milliseconds below 1 with three significant digits, above 1
 * rounded with thousands separators; usec/call rounded without separators.
 */

/** Thousands separators on an integer-valued number. */
export function withCommas(n: number): string {
  const neg = n < 0;
  const s = String(Math.round(Math.abs(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return neg ? `-${grouped}` : grouped;
}

/** A number with at most `digits` significant digits, trailing zeros removed (C's %G without exponent). */
export function significant(n: number, digits = 3): string {
  if (n === 0) return '0';
  let s = n.toPrecision(digits);
  if (s.includes('e')) s = Number(s).toString();
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/**
 * A value in the metric's unit as pprof prints it in the msec / counts columns. `scale` divides the
 * stored value first (1000 turns TIME's microseconds into milliseconds).
 */
export function formatValue(value: number, scale: number): string {
  const v = value / scale;
  if (v === 0) return '0';
  if (Math.abs(v) < 1) return significant(v, 3);
  // pprof truncates, it does not round: 531.992 msec prints as 531.
  return withCommas(Math.trunc(v));
}

/** Calls and subroutine counts: integers as they are, means over threads with one decimal. */
export function formatCount(n: number): string {
  if (Number.isInteger(n)) return String(n);
  if (Math.abs(n) < 10) return significant(n, 3);
  return n.toFixed(1);
}

/** Inclusive value per call, rounded (pprof's usec/call column). */
export function formatPerCall(incl: number, calls: number): string {
  if (calls === 0) return '0';
  const v = incl / calls;
  return Math.abs(v) < 1 && v !== 0 ? significant(v, 3) : String(Math.round(v));
}

export function formatPercent(p: number): string {
  return p.toFixed(1);
}

/** Right-align `s` in `width` columns (never truncates). */
export function padLeft(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}

export function padRight(s: string, width: number): string {
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}
