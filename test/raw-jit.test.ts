/**
 * The JIT section of a raw file (src/samples/raw-jit.ts, docs/raw-format.md tag 12) and the lookup
 * resolve makes from it (src/symbolize/jit-code.ts), on hand-made records: lines by pc offset, moves,
 * inlined functions (by lines in a log of types 1 and 4, by source positions in one of types 6 and 7,
 * as the V8 part writes it now), the drop count; and every kind of damage refused with the file, the offset of
 * the record and what was wrong. The V8 part that writes the log is tested for real in
 * node-v8jit.test.ts.
 */
import test from 'ava';
import { Cursor } from '../src/samples/cursor.js';
import { readJit } from '../src/samples/raw-jit.js';
import type { RawJitRecord, RawProcess } from '../src/samples/raw-model.js';
import { JitCodeLog } from '../src/symbolize/jit-code.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { V8Log } from '../src/symbolize/v8-log.js';

/** The JIT section of `records`; `bytes` (the log's length) and `after` (bytes past the log) to damage it. */
function section(records: Buffer[], dropped = 0n, bytes?: bigint, after = Buffer.alloc(0)): Cursor {
  const body = Buffer.concat(records);
  const head = Buffer.alloc(16);
  head.writeBigUInt64LE(dropped, 0);
  head.writeBigUInt64LE(bytes ?? BigInt(body.length), 8);
  const buf = Buffer.concat([head, body, after]);
  return new Cursor('test.raw', buf, 0, buf.length, 'section JIT', false);
}

/** A record of `len` bytes and `type`, its payload zeros. */
function bare(type: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  b.writeUInt32LE(len, 0);
  b.writeUInt32LE(type, 4);
  return b;
}

/**
 * A CODE record: type 1 with (pc offset, line) entries, or type 6 with (pc offset, line, position)
 * entries (source positions).
 */
function codeEntries(type: 1 | 6, start: bigint, size: bigint, name: string, entries: number[][]): Buffer {
  const width = type === 1 ? 2 : 3;
  const payload = 32 + entries.length * 4 * width + Buffer.byteLength(name);
  const len = 8 + Math.ceil(payload / 8) * 8;
  const b = Buffer.alloc(len);
  b.writeUInt32LE(len, 0);
  b.writeUInt32LE(type, 4);
  b.writeBigUInt64LE(start, 8);
  b.writeBigUInt64LE(size, 16);
  b.writeUInt32LE(1, 24);
  b.writeUInt32LE(Buffer.byteLength(name), 28);
  b.writeUInt32LE(entries.length, 32);
  entries.forEach((e, i) => e.forEach((v, k) => b.writeUInt32LE(v, 40 + 4 * (width * i + k))));
  b.write(name, 40 + entries.length * 4 * width);
  return b;
}

const codeRecord = (start: bigint, size: bigint, name: string, lines: Array<[number, number]>): Buffer =>
  codeEntries(1, start, size, name, lines);

/** A CODE record with source positions (type 6): entries (pc offset, line, position). */
const codePosRecord = (start: bigint, size: bigint, name: string, entries: Array<[number, number, number]>): Buffer =>
  codeEntries(6, start, size, name, entries);

/** A RANGE record with source positions (type 7). */
function rangePosRecord(first: number, last: number, firstPos: number, lastPos: number, name: string): Buffer {
  const len = 8 + Math.ceil((24 + Buffer.byteLength(name)) / 8) * 8;
  const b = Buffer.alloc(len);
  b.writeUInt32LE(len, 0);
  b.writeUInt32LE(7, 4);
  b.writeUInt32LE(first, 8);
  b.writeUInt32LE(last, 12);
  b.writeUInt32LE(Buffer.byteLength(name), 16);
  b.writeUInt32LE(firstPos, 24);
  b.writeUInt32LE(lastPos, 28);
  b.write(name, 32);
  return b;
}

function moveRecord(from: bigint, to: bigint, size: bigint): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(32, 0);
  b.writeUInt32LE(2, 4);
  b.writeBigUInt64LE(from, 8);
  b.writeBigUInt64LE(to, 16);
  b.writeBigUInt64LE(size, 24);
  return b;
}

function rangeRecord(first: number, last: number, name: string): Buffer {
  const len = 8 + Math.ceil((16 + Buffer.byteLength(name)) / 8) * 8;
  const b = Buffer.alloc(len);
  b.writeUInt32LE(len, 0);
  b.writeUInt32LE(4, 4);
  b.writeUInt32LE(first, 8);
  b.writeUInt32LE(last, 12);
  b.writeUInt32LE(Buffer.byteLength(name), 16);
  b.write(name, 24);
  return b;
}

test('the log: lines by pc offset, the last code at an address wins, moves keep names and lines', (t) => {
  const log = readJit(
    section([
      codeRecord(0x1000n, 0x100n, 'JS:~old file:///a.js:1:1', []),
      codeRecord(0x1000n, 0x80n, 'JS:*hot file:///a.js:2:13', [
        [0, 2],
        [0x10, 5],
        [0x40, 7],
      ]),
      moveRecord(0x1000n, 0x9000n, 0x80n),
      codeRecord(0x2000n, 0x10n, 'Builtin:X', []),
    ]),
  );
  t.is(log.records.length, 4);
  const jit = new JitCodeLog(log);
  t.deepEqual(jit.lookup(0x1000n), [{ function: 'hot', file: '/a.js', line: 2 }]);
  t.deepEqual(jit.lookup(0x1020n), [{ function: 'hot', file: '/a.js', line: 5 }]);
  t.deepEqual(jit.lookup(0x107fn), [{ function: 'hot', file: '/a.js', line: 7 }]);
  // past the newer, shorter code: the older code still holds it
  t.deepEqual(jit.lookup(0x10a0n), [{ function: 'old', file: '/a.js', line: 1 }]);
  // moved: the same code and lines at the new address
  t.deepEqual(jit.lookup(0x9011n), [{ function: 'hot', file: '/a.js', line: 5 }]);
  t.deepEqual(jit.lookup(0x2004n), [{ function: 'Builtin:X', file: '', line: 0 }]);
  t.is(jit.lookup(0x3000n), null);
});

test("the log: a line outside the function's span is an inlined function's", (t) => {
  const jit = new JitCodeLog(
    readJit(
      section([
        rangeRecord(2, 8, 'JS:~hot file:///a.js:2:13'),
        rangeRecord(18, 30, 'JS:~outer file:///a.js:18:1'),
        rangeRecord(20, 22, 'JS:~helper file:///a.js:20:3'),
        codeRecord(0x1000n, 0x100n, 'JS:*hot file:///a.js:2:13', [
          [0, 2],
          [0x10, 6],
          [0x20, 21],
          [0x30, 50],
          [0x40, 1],
        ]),
        // compiled before the log started: no span
        codeRecord(0x2000n, 0x100n, 'JS:*early file:///b.js:10:1', [
          [0, 12],
          [0x10, 3],
        ]),
      ]),
    ),
  );
  t.deepEqual(jit.lookup(0x1010n), [{ function: 'hot', file: '/a.js', line: 6 }]);
  // inside helper (the innermost span that holds line 21), inlined into hot
  t.deepEqual(jit.lookup(0x1020n), [
    { function: 'helper', file: '/a.js', line: 21 },
    { function: 'hot', file: '/a.js', line: 2 },
  ]);
  // the sampled instruction (not a return address) in helper's code: hot's own time at helper's line,
  // as --cpu-prof counts it
  t.deepEqual(jit.lookup(0x1020n, true), [{ function: 'hot', file: '/a.js', line: 21 }]);
  t.deepEqual(jit.lookup(0x1010n, true), [{ function: 'hot', file: '/a.js', line: 6 }]);
  // no function of the file holds it (inlined from another file): the function's first line
  t.deepEqual(jit.lookup(0x1030n), [{ function: 'hot', file: '/a.js', line: 2 }]);
  t.deepEqual(jit.lookup(0x1040n), [{ function: 'hot', file: '/a.js', line: 2 }]);
  t.deepEqual(jit.lookup(0x2000n), [{ function: 'early', file: '/b.js', line: 12 }]);
  t.deepEqual(jit.lookup(0x2010n), [{ function: 'early', file: '/b.js', line: 10 }]);
});

test('positions tell apart functions on one line (a minified file): the innermost that holds the position', (t) => {
  // One line: helper at positions 10-60, hot 70-400 with a closure at 200-260 inside it; hot compiled
  // twice (two spans), and a second file on the same line numbers.
  const jit = new JitCodeLog(
    readJit(
      section([
        rangePosRecord(1, 1, 10, 60, 'JS:~helper file:///m.js:1:1'),
        rangePosRecord(1, 1, 70, 400, 'JS:~hot file:///m.js:1:65'),
        rangePosRecord(1, 1, 200, 260, 'JS:~ file:///m.js:1:190'),
        rangePosRecord(1, 1, 72, 380, 'JS:~hot file:///m.js:1:65'),
        rangePosRecord(1, 1, 10, 900, 'JS:~other file:///n.js:1:1'),
        codePosRecord(0x1000n, 0x100n, 'JS:*hot file:///m.js:1:65', [
          [0, 1, 80],
          [0x10, 1, 30],
          [0x20, 1, 220],
          [0x30, 1, 300],
          [0x40, 1, 5000],
          [0x50, 1, 390],
        ]),
      ]),
    ),
  );
  t.deepEqual(jit.lookup(0x1000n), [{ function: 'hot', file: '/m.js', line: 1 }]);
  // helper inlined into hot: on the same line, told apart by its position
  t.deepEqual(jit.lookup(0x1010n), [
    { function: 'helper', file: '/m.js', line: 1 },
    { function: 'hot', file: '/m.js', line: 1 },
  ]);
  // a closure of hot inlined into it
  t.deepEqual(jit.lookup(0x1020n), [
    { function: '(anonymous)', file: '/m.js', line: 1 },
    { function: 'hot', file: '/m.js', line: 1 },
  ]);
  // hot's own code after the closure; and where only its earlier compilation's span reaches
  t.deepEqual(jit.lookup(0x1030n), [{ function: 'hot', file: '/m.js', line: 1 }]);
  t.deepEqual(jit.lookup(0x1050n), [{ function: 'hot', file: '/m.js', line: 1 }]);
  // held by no function of the file (inlined from another file): hot at its first line
  t.deepEqual(jit.lookup(0x1040n), [{ function: 'hot', file: '/m.js', line: 1 }]);
});

test("a position in code around the function (a CommonJS module's wrapper) is another file's: the function at its first line", (t) => {
  // The module wrapper spans the file (0-5000); visit (100-300) and walk (400-900) inside it; walk's
  // optimised code holds visit inlined (same file), and at 50 and 2000 positions of a callee inlined
  // from another module, which fall in the wrapper's own code, outside every function it holds.
  const jit = new JitCodeLog(
    readJit(
      section([
        rangePosRecord(1, 200, 0, 5000, 'JS:~ file:///s.cjs:1:1'),
        rangePosRecord(5, 9, 100, 300, 'JS:~visit file:///s.cjs:5:1'),
        rangePosRecord(20, 40, 400, 900, 'JS:~walk file:///s.cjs:20:1'),
        codePosRecord(0x1000n, 0x100n, 'JS:*walk file:///s.cjs:20:1', [
          [0, 21, 410],
          [0x10, 6, 150],
          [0x20, 2, 50],
          [0x30, 90, 2000],
        ]),
      ]),
    ),
  );
  t.deepEqual(jit.lookup(0x1000n), [{ function: 'walk', file: '/s.cjs', line: 21 }]);
  t.deepEqual(jit.lookup(0x1010n), [
    { function: 'visit', file: '/s.cjs', line: 6 },
    { function: 'walk', file: '/s.cjs', line: 20 },
  ]);
  t.deepEqual(jit.lookup(0x1020n), [{ function: 'walk', file: '/s.cjs', line: 20 }]);
  t.deepEqual(jit.lookup(0x1030n), [{ function: 'walk', file: '/s.cjs', line: 20 }]);
});

test('a log with positions is read with them; a record of types 6 and 7 too short for its fields is refused', (t) => {
  const records = readJit(
    section([codePosRecord(0x1000n, 0x10n, 'JS:*f file:///a.js:3:1', [[0, 4, 17]]), rangePosRecord(3, 5, 12, 40, 'JS:~f file:///a.js:3:1')]),
  ).records;
  t.deepEqual(records[1], { type: 'range', first: 3, last: 5, name: 'JS:~f file:///a.js:3:1', firstPos: 12, lastPos: 40 });
  t.deepEqual(records[0].type === 'code' ? [[...records[0].lines], [...(records[0].positions ?? [])]] : [], [[0, 4], [17]]);
  const long = codePosRecord(0x1000n, 0x10n, 'JS:*f file:///a.js:3:1', [[0, 4, 17]]);
  long.writeUInt32LE(3, 32); // three entries of 12 bytes do not fit
  t.throws(() => readJit(section([long])), { message: /JIT code record of length \d+ cannot hold 3 lines and a name of 22 bytes/ });
  t.throws(() => readJit(section([bare(7, 24)])), { message: 'test.raw: offset 16: section JIT: JIT range record of length 24 (at least 32 expected)' });
  const range = rangePosRecord(1, 9, 0, 9, 'JS:~f file:///a.js:1:1');
  range.writeUInt32LE(500, 16);
  t.throws(() => readJit(section([range])), { message: `test.raw: offset 16: section JIT: JIT range record of length ${range.length} cannot hold a name of 500 bytes` });
});

test('a corrupt log is refused with the offset and what was wrong', (t) => {
  const bad = codeRecord(0x1000n, 0x10n, 'JS:f file:///a.js:1:1', []);
  bad.writeUInt32LE(12, 0); // not a multiple of 8
  t.throws(() => readJit(section([bad])), { message: /test\.raw: offset 16: section JIT: JIT record of length 12 \(a multiple of 8 inside the log expected\)/ });
  const short = codeRecord(0x1000n, 0x10n, 'JS:f file:///a.js:1:1', []);
  short.writeUInt32LE(1000, 28); // a name longer than the record
  t.throws(() => readJit(section([short])), { message: /cannot hold 0 lines and a name of 1000 bytes/ });
  const records: RawJitRecord[] = readJit(section([Buffer.from([16, 0, 0, 0, 99, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8])])).records;
  t.deepEqual(records, [], 'a record of an unknown type is skipped');
});

test('resolve warns when the log had no room for every event, and still names what it holds', (t) => {
  const jit = readJit(section([codeRecord(0x1000n, 0x10n, 'JS:*f file:///a.js:3:1', [[0, 4]])], 3n));
  const p = { file: 'test.raw', maps: [], jit, info: { pid: 1, startNs: 0n } } as unknown as RawProcess;
  const s = new Symbolizer({ cacheDir: null });
  t.deepEqual(s.resolve(p, 0x1004n, false), { resolved: true, frames: [{ function: 'f', file: '/a.js', line: 4 }] });
  t.deepEqual(readJit(section([rangeRecord(1, 2, 'JS:~f file:///a.js:1:1')])).records, [{ type: 'range', first: 1, last: 2, name: 'JS:~f file:///a.js:1:1' }]);
  // a return address is looked up inside the call: the byte before it
  t.deepEqual(s.resolve(p, 0x1010n, true), { resolved: true, frames: [{ function: 'f', file: '/a.js', line: 4 }] });
  t.deepEqual(s.resolve(p, 0x1010n, false), { resolved: false, module: 'UNKNOWN', address: 0x1010n });
  t.deepEqual(
    s.warnings.filter((w) => w.includes('JIT')),
    ['test.raw: 3 JIT code events did not fit in the runtime\'s log: code created after that stays UNRESOLVED'],
  );
});

test('a record shorter than its fields is refused with its offset, not skipped', (t) => {
  // after one whole record, so the offset named is the damaged record's own
  const good = moveRecord(0x1000n, 0x2000n, 0x10n);
  const cases: Array<[number, number, string]> = [
    [1, 32, 'JIT code record of length 32 (at least 40 expected)'],
    [2, 24, 'JIT move record of length 24 (at least 32 expected)'],
    [3, 16, 'JIT remove record of length 16 (at least 24 expected)'],
    [4, 16, 'JIT range record of length 16 (at least 24 expected)'],
  ];
  for (const [type, len, what] of cases) {
    t.throws(() => readJit(section([good, bare(type, len), good])), { message: `test.raw: offset 48: section JIT: ${what}` }, `type ${type}`);
  }
  // the same types at their full length are read
  t.deepEqual(readJit(section([bare(2, 32), bare(3, 24), bare(4, 24)])).records.map((r) => r.type), ['move', 'remove', 'range']);
});

test('a damaged log head, range record or section end is refused with the offset and what was wrong', (t) => {
  const range = rangeRecord(1, 9, 'JS:~f file:///a.js:1:1');
  range.writeUInt32LE(500, 16); // a name longer than the record
  t.throws(() => readJit(section([range])), { message: `test.raw: offset 16: section JIT: JIT range record of length ${range.length} cannot hold a name of 500 bytes` });
  const one = moveRecord(1n, 2n, 3n);
  t.throws(() => readJit(section([one], 0n, 36n)), { message: 'test.raw: offset 16: section JIT: a JIT log of 36 bytes (a multiple of 8 that fits in the section expected)' });
  t.throws(() => readJit(section([one], 0n, 40n)), { message: 'test.raw: offset 16: section JIT: a JIT log of 40 bytes (a multiple of 8 that fits in the section expected)' });
  t.throws(() => readJit(section([one], 1n << 60n)), { message: /^test\.raw: offset 0: section JIT: the number of JIT records dropped 1152921504606846976 is implausibly large$/ });
  // bytes after the log, inside the section
  t.throws(() => readJit(section([one], 0n, undefined, Buffer.alloc(8))), { message: 'test.raw: offset 48: section JIT: 8 unexpected bytes at the end of the section' });
});

test('a record still being logged when the file was written (PENDING) is skipped and counted; the records after it are read and resolve warns', (t) => {
  // As the V8 part writes it: the reserved length, type 5, zeros.
  const pending = Buffer.alloc(48);
  pending.writeUInt32LE(48, 0);
  pending.writeUInt32LE(5, 4);
  const jit = readJit(
    section([
      codeRecord(0x1000n, 0x10n, 'JS:*f file:///a.js:3:1', [[0, 4]]),
      pending,
      codeRecord(0x2000n, 0x10n, 'JS:*g file:///b.js:7:1', [[0, 8]]),
    ]),
  );
  t.is(jit.pending, 1);
  t.is(jit.dropped, 0);
  t.deepEqual(
    jit.records.map((r) => (r.type === 'code' ? r.name : r.type)),
    ['JS:*f file:///a.js:3:1', 'JS:*g file:///b.js:7:1'],
  );
  const p = { file: 'test.raw', maps: [], jit, info: { pid: 1, startNs: 0n } } as unknown as RawProcess;
  const s = new Symbolizer({ cacheDir: null });
  t.deepEqual(s.resolve(p, 0x2004n, false), { resolved: true, frames: [{ function: 'g', file: '/b.js', line: 8 }] });
  t.deepEqual(
    s.warnings.filter((w) => w.includes('JIT')),
    ['test.raw: 1 JIT code event was still being logged when the file was written: the code named there may stay UNRESOLVED'],
  );
});

test("with V8's code log: a return address in inlined code names the inlined function of its file; the sampled instruction is the outer function's, at the call", (t) => {
  // helper (lib.js, script 2, positions 30-90) inlined into hot (main.js, script 1), called at position 120
  const v8 = new V8Log([
    [
      'code-creation,JS,10,100,0x1000,50,helper /app/lib.js:3:16,0xa0,~',
      'code-source-info,0x1000,2,30,90,C0O30,,',
      'code-creation,JS,13,200,0x7f00,944,hot /app/main.js:9:13,0xb0,*',
      'code-source-info,0x7f00,1,10,200,C0O10C40O120C60O60I0C100O150,F0O120,S0xa0',
    ].join('\n'),
  ]);
  const jit = new JitCodeLog(
    readJit(section([codePosRecord(0x7f00n, 944n, 'JS:*hot /app/main.js:9:13', [[0, 9, 10], [40, 11, 120], [60, 11, 60], [100, 12, 150]])])),
    v8,
  );
  t.deepEqual(jit.lookup(0x7f00n + 65n), [
    { function: 'helper', file: '/app/lib.js', line: 3 },
    { function: 'hot', file: '/app/main.js', line: 11 },
  ]);
  // as --cpu-prof counts a tick there: hot's own time
  t.deepEqual(jit.lookup(0x7f00n + 65n, true), [{ function: 'hot', file: '/app/main.js', line: 11 }]);
  t.deepEqual(jit.lookup(0x7f00n + 100n, true), [{ function: 'hot', file: '/app/main.js', line: 12 }]);
});
