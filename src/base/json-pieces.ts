/**
 * JSON text in pieces, the same text JSON.stringify(value, null, indent) gives for plain data
 * (objects, arrays, strings, numbers, booleans, null; undefined members left out, undefined array
 * items and non-finite numbers as null, toJSON honoured). A report of millions of events is more text
 * than one JavaScript string may hold (~512 MB), so it is written piece by piece.
 */

/** Pieces of about `size` characters (whole values never split within a string). */
export function* jsonPieces(value: unknown, indent = 2, size = 1 << 16): Generator<string> {
  let buf: string[] = [];
  let len = 0;
  for (const s of tokens(value, indent)) {
    buf.push(s);
    len += s.length;
    if (len >= size) {
      yield buf.join('');
      buf = [];
      len = 0;
    }
  }
  if (buf.length > 0) yield buf.join('');
}

type Frame =
  | { kind: 'array'; items: unknown[]; i: number; pad: string }
  | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; i: number; first: boolean; pad: string };

/** The text's tokens, depth first with an explicit stack: values may nest deeper than recursion allows. */
function* tokens(root: unknown, indent: number): Generator<string> {
  const unit = ' '.repeat(indent);
  // JSON.stringify puts no line breaks (and no space after ':') when there is no indentation.
  const nl = indent > 0 ? '\n' : '';
  const colon = indent > 0 ? ': ' : ':';
  const stack: Frame[] = [];
  // Emit one value at `pad` depth: scalars at once, containers by pushing a frame.
  const open = function* (v: unknown, pad: string): Generator<string> {
    const x = toPlain(v);
    if (x === null || typeof x !== 'object') {
      yield scalar(x);
      return;
    }
    if (Array.isArray(x)) {
      if (x.length === 0) {
        yield '[]';
        return;
      }
      yield '[';
      stack.push({ kind: 'array', items: x, i: 0, pad });
      return;
    }
    const obj = x as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => isWritten(toPlain(obj[k])));
    if (keys.length === 0) {
      yield '{}';
      return;
    }
    yield '{';
    stack.push({ kind: 'object', obj, keys, i: 0, first: true, pad });
  };
  yield* open(root, '');
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const inner = f.pad + unit;
    if (f.kind === 'array') {
      if (f.i === f.items.length) {
        stack.pop();
        yield `${nl}${f.pad}]`;
        continue;
      }
      yield `${f.i === 0 ? '' : ','}${nl}${inner}`;
      const v = f.items[f.i++];
      yield* open(isWritten(toPlain(v)) ? v : null, inner);
    } else {
      if (f.i === f.keys.length) {
        stack.pop();
        yield `${nl}${f.pad}}`;
        continue;
      }
      const k = f.keys[f.i++];
      yield `${f.i === 1 ? '' : ','}${nl}${inner}${JSON.stringify(k)}${colon}`;
      yield* open(f.obj[k], inner);
    }
  }
}

function toPlain(v: unknown): unknown {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON: () => unknown }).toJSON() : v;
}

/** Members JSON.stringify leaves out of objects (and writes as null in arrays). */
function isWritten(v: unknown): boolean {
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

function scalar(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
  return JSON.stringify(v) ?? 'null';
}
