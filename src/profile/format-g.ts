/**
 * C's printf("%.16G") in JavaScript: TAU writes every profile value this way, and its readers (and
 * people diffing profiles) expect the same text. 16 significant digits, trailing zeros removed,
 * exponent form ("1.5E+20", "1E-05") when the exponent is < -4 or >= 16. Exact ties round half to
 * even as glibc does (JavaScript's toExponential rounds them up).
 */
const PRECISION = 16;

export function formatG16(v: number): string {
  if (Number.isNaN(v)) return 'NAN';
  if (!Number.isFinite(v)) return v > 0 ? 'INF' : '-INF';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // Whole numbers below 10^16 are printed in full, exactly as String gives them (calls, counts, the
  // root line): the common case, without the rounding work below.
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return String(v);
  const sign = v < 0 ? '-' : '';
  let { digits, exp } = roundTo16(Math.abs(v));
  const body = exp >= -4 && exp < PRECISION ? fixed(digits, exp) : exponential(digits, exp);
  return sign + body;
}

/** The 16 significant digits and decimal exponent of a positive finite value, as glibc rounds. */
function roundTo16(a: number): { digits: string; exp: number } {
  const e = a.toExponential(PRECISION - 1);
  const at = e.indexOf('e');
  let digits = e.slice(0, at).replace('.', '');
  let exp = Number(e.slice(at + 1));
  const tie = exactTie(a);
  if (tie) {
    // toExponential rounded the tie up; glibc keeps the even neighbour.
    const down = tie.first16;
    if (Number(down[PRECISION - 1]) % 2 === 0) {
      digits = down;
      exp = tie.exp;
    }
  }
  return { digits, exp };
}

/** When `a` lies exactly halfway between two 16-digit decimals: the lower one's digits. */
function exactTie(a: number): { first16: string; exp: number } | null {
  const e = a.toExponential(PRECISION); // 17 digits, exact if a tie exists
  const at = e.indexOf('e');
  const d17 = e.slice(0, at).replace('.', '');
  if (d17[PRECISION] !== '5') return null;
  const exp = Number(e.slice(at + 1));
  // Is a exactly d17 * 10^(exp-16)? Compare with a's binary form a = mant * 2^bexp in integers.
  const { mant, bexp } = decompose(a);
  const k = exp - PRECISION;
  const pos = (x: number) => BigInt(Math.max(x, 0));
  const neg = (x: number) => BigInt(Math.max(-x, 0));
  const lhs = BigInt(d17) * 10n ** pos(k) * 2n ** neg(bexp);
  const rhs = mant * 2n ** pos(bexp) * 10n ** neg(k);
  if (lhs !== rhs) return null;
  return { first16: d17.slice(0, PRECISION), exp };
}

function decompose(a: number): { mant: bigint; bexp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  return e === 0 ? { mant: frac, bexp: -1074 } : { mant: frac | (1n << 52n), bexp: e - 1075 };
}

function fixed(digits: string, exp: number): string {
  const s = exp >= 0 ? `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}` : `0.${'0'.repeat(-exp - 1)}${digits}`;
  return stripZeros(s);
}

function exponential(digits: string, exp: number): string {
  const mantissa = stripZeros(`${digits[0]}.${digits.slice(1)}`);
  return `${mantissa}E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function stripZeros(s: string): string {
  if (!s.includes('.')) return s;
  return s.replace(/0+$/, '').replace(/\.$/, '');
}
