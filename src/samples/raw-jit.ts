/**
 * The JIT section (tag 12, docs/raw-format.md): V8's JIT code events of a Node process, as the V8
 * part (native/addon/v8) logged them: `u64 dropped, u64 bytes`, then records of a multiple of 8
 * bytes each, `u32 length, u32 type, payload`; a record the V8 part had reserved but not finished
 * when the file was written is there as type 5 PENDING, counted and skipped.
 */
import type { Cursor } from './cursor.js';
import type { RawJitLog, RawJitRecord } from './raw-model.js';

const CODE = 1;
const MOVE = 2;
const REMOVE = 3;
const RANGE = 4;
const PENDING = 5;
/** CODE and RANGE with V8's source positions (what the V8 part writes now; 1 and 4 are still read). */
const CODE_POS = 6;
const RANGE_POS = 7;

/**
 * A record shorter than its type's fields is damage, not a record cut off by a program that died:
 * the V8 part publishes a record's length only once the record is whole, and the dump copies
 * published records only (native/addon/v8/jit_log.c). So it is refused, not skipped.
 */
function fits(c: Cursor, len: number, need: number, what: string, at: number): void {
  if (len < need) c.fail(`JIT ${what} record of length ${len} (at least ${need} expected)`, at);
}

export function readJit(c: Cursor): RawJitLog {
  const dropped = c.u64n('the number of JIT records dropped');
  const bytes = c.u64n('the length of the JIT log');
  if (bytes % 8 !== 0 || bytes > c.end - c.pos) c.fail(`a JIT log of ${bytes} bytes (a multiple of 8 that fits in the section expected)`);
  const end = c.pos + bytes;
  const records: RawJitRecord[] = [];
  let pending = 0;
  while (c.pos < end) {
    const at = c.pos;
    const len = c.u32('the length of a JIT record');
    const type = c.u32('the type of a JIT record');
    if (len < 8 || len % 8 !== 0 || at + len > end) c.fail(`JIT record of length ${len} (a multiple of 8 inside the log expected)`, at);
    if (type === CODE || type === CODE_POS) {
      fits(c, len, 40, 'code', at);
      const start = c.u64('the start of JIT code');
      const size = c.u64('the size of JIT code');
      const codeType = c.u32('the code type');
      const nameLen = c.u32('the length of the code name');
      const n = c.u32('the number of line entries');
      c.u32('padding');
      const entry = type === CODE_POS ? 12 : 8;
      if (32 + 8 + n * entry + nameLen > len) c.fail(`JIT code record of length ${len} cannot hold ${n} lines and a name of ${nameLen} bytes`, at);
      const lines = new Uint32Array(n * 2);
      const positions = type === CODE_POS ? new Uint32Array(n) : undefined;
      for (let i = 0; i < n; i++) {
        lines[2 * i] = c.u32('a line entry');
        lines[2 * i + 1] = c.u32('a line entry');
        if (positions) positions[i] = c.u32('a source position');
      }
      const name = c.text(nameLen, 'the code name');
      records.push(positions ? { type: 'code', start, size, codeType, name, lines, positions } : { type: 'code', start, size, codeType, name, lines });
    } else if (type === MOVE) {
      fits(c, len, 32, 'move', at);
      records.push({ type: 'move', from: c.u64('the old code start'), to: c.u64('the new code start'), size: c.u64('the code size') });
    } else if (type === REMOVE) {
      fits(c, len, 24, 'remove', at);
      records.push({ type: 'remove', start: c.u64('the removed code start'), size: c.u64('the code size') });
    } else if (type === RANGE || type === RANGE_POS) {
      const head = type === RANGE_POS ? 24 : 16;
      fits(c, len, 8 + head, 'range', at);
      const first = c.u32('the first line of a function');
      const last = c.u32('the last line of a function');
      const nameLen = c.u32('the length of the function name');
      c.u32('padding');
      const firstPos = type === RANGE_POS ? c.u32('the first position of a function') : undefined;
      const lastPos = type === RANGE_POS ? c.u32('the last position of a function') : undefined;
      if (8 + head + nameLen > len) c.fail(`JIT range record of length ${len} cannot hold a name of ${nameLen} bytes`, at);
      const name = c.text(nameLen, 'the function name');
      records.push(firstPos === undefined ? { type: 'range', first, last, name } : { type: 'range', first, last, name, firstPos, lastPos });
    }
    if (type === PENDING) pending++;
    // records still being written (PENDING) and those of a later version (unknown types) are skipped whole
    c.skip(at + len - c.pos, 'the rest of a JIT record');
  }
  c.done();
  return { records, dropped, pending };
}
