/**
 * JavaScript frames named from V8's JIT code events (native/addon/v8, src/symbolize/jit-code.ts;
 * docs/node.md, "JavaScript frames in samples"), measured for real: test/native/node_jit_lines.mjs
 * under `hyprof run -- node`. The sampled line of optimised code (not only the function's first line),
 * the line of the call in an optimised caller's frame, a worker thread's code, no perf map; and the
 * fallback to V8's perf map with HYPROF_V8_JIT=0. The log's reader and lookup on hand-made records.
 */
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/output/tau-reader.js';
import { Cursor } from '../src/samples/cursor.js';
import { readJit } from '../src/samples/raw-jit.js';
import type { RawJitRecord, RawProcess } from '../src/samples/raw-model.js';
import { JitCodeLog } from '../src/symbolize/jit-code.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { hyprof, libDir, run, testNativeDir, tmpDir } from './helpers/native.js';

const app = join(testNativeDir, 'node_jit_lines.mjs');
const source = readFileSync(app, 'utf8').split('\n');
const lineOf = (pick: (l: string) => boolean) => source.findIndex(pick) + 1;
const hotStart = lineOf((l) => l.startsWith('function jitHot'));
const hotLine = lineOf((l) => l.includes('// HOT LINE'));
const callerStart = lineOf((l) => l.startsWith('function caller'));
const callLine = lineOf((l) => l.includes('// CALL LINE'));
const part = join(libDir, 'hyprof_v8.node');

async function measure(prefix: string, env: Record<string, string | undefined>) {
  const dir = tmpDir(prefix);
  const out = join(dir, 'prof');
  // In its own directory: with the perf map (HYPROF_V8_JIT=0) node writes isolate-*-v8.log files
  // into its working directory.
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, '--allow-natives-syntax', app], {
    cwd: dir,
    env: { NODE_OPTIONS: undefined, ...env },
    timeoutMs: 120_000,
  });
  const pid = Number(/^pid (\d+)/m.exec(r.stdout)?.[1]);
  const threads = r.code === 0 ? readTauProfileDir(out).threads[0] : [];
  /** Flat sample events of a thread: name -> samples. */
  const flat = (thread: number) =>
    new Map(
      (threads.find((t) => t.thread === thread)?.events ?? [])
        .filter((e) => e.name.startsWith('[SAMPLE] '))
        .map((e) => [e.name, e.calls] as const),
    );
  return { r, pid, threads, flat };
}

const leaf = (fn: string, line: number) => `[SAMPLE] ${fn} [{${app}} {${line}}]`;
const withEvents = existsSync(part);

const viaEvents = withEvents ? measure('node-v8jit', {}) : null;

test('the V8 part is built with the runtime', (t) => {
  // built by node-gyp from source with everything else (binding.gyp target hyprof_v8)
  t.true(withEvents, `${part} is not built`);
  t.true(hotLine > hotStart && callLine > callerStart, 'the program marks its lines');
});

test('optimised code: samples carry the sampled line, names and files as with a perf map', async (t) => {
  if (!viaEvents) return t.fail('no V8 part');
  const { r, flat } = await viaEvents;
  t.is(r.code, 0, r.stderr);
  const main = flat(0);
  const hot = main.get(leaf('jitHot', hotLine)) ?? 0;
  const all = [...main].filter(([n]) => n.startsWith('[SAMPLE] jitHot ')).reduce((a, [, c]) => a + c, 0);
  t.true(hot > 100, `samples of jitHot on its hot line ${hotLine}: ${hot}; jitHot: ${[...main.keys()].filter((n) => n.includes('jitHot')).join(', ')}`);
  t.true(hot / all > 0.8, `${hot} of ${all} jitHot samples on line ${hotLine}`);
  // not only the line the function starts on (what a perf map gives)
  t.true((main.get(leaf('jitHot', hotStart)) ?? 0) < hot / 4);
});

test("an optimised caller's frame carries the line of the call", async (t) => {
  if (!viaEvents) return t.fail('no V8 part');
  const { threads } = await viaEvents;
  const main = threads.find((x) => x.thread === 0)!;
  const paths = main.events.filter((e) => e.group.includes('TAU_CALLPATH') && / => \[SAMPLE\] slowInner \[/.test(e.name));
  t.true(paths.length > 0, 'no sample in slowInner with its callers');
  const atCall = paths.filter((e) => e.name.includes(` [@] caller [{${app}} {${callLine}}] => [SAMPLE] slowInner`));
  t.true(atCall.reduce((a, e) => a + e.calls, 0) > 0.5 * paths.reduce((a, e) => a + e.calls, 0), paths.map((e) => e.name.slice(-300)).join('\n'));
});

test("a worker thread's JIT code is named, with its line", async (t) => {
  if (!viaEvents) return t.fail('no V8 part');
  const { threads, flat } = await viaEvents;
  const workers = threads.filter((x) => x.thread !== 0).map((x) => flat(x.thread).get(leaf('jitHot', hotLine)) ?? 0);
  t.true(
    workers.some((n) => n > 100),
    `jitHot samples on line ${hotLine} per other thread: ${workers.join(', ')}`,
  );
});

test('no perf map is created when the V8 part is loaded', async (t) => {
  if (!viaEvents) return t.fail('no V8 part');
  const { r, pid } = await viaEvents;
  t.regex(r.stdout, /perf map absent$/m);
  t.false(existsSync(perfMapPath(pid)));
});

test("HYPROF_V8_JIT=0: named from V8's perf map (start lines), said with HYPROF_VERBOSE, map removed", async (t) => {
  const { r, pid, flat } = await measure('node-v8jit-off', { HYPROF_V8_JIT: '0', HYPROF_VERBOSE: '1' });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /hyprof: HYPROF_V8_JIT=0: JavaScript frames are named from V8's perf map, with the line where each function starts/);
  t.regex(r.stdout, /perf map present$/m);
  t.true((flat(0).get(leaf('jitHot', hotStart)) ?? 0) > 100, [...flat(0).keys()].filter((n) => n.includes('jitHot')).join(', '));
  t.false([...flat(0).keys()].some((n) => n === leaf('jitHot', hotLine)));
  t.false(existsSync(perfMapPath(pid)), 'perf map left behind');
});

test('under forced compactions the code keeps its name: the code space is not compacted', async (t) => {
  // without --no-compact-code-space (set by the preload) most of these samples were named by other
  // functions moved later to the hot function's earlier addresses
  const moves = join(testNativeDir, 'node_jit_moves.mjs');
  const movedLine = readFileSync(moves, 'utf8').split('\n').findIndex((l) => l.includes('// HOT LINE')) + 1;
  const out = join(tmpDir('node-v8jit-moves'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, '--expose-gc', '--compact-on-every-full-gc', '--stress-compaction', moves], {
    env: { NODE_OPTIONS: undefined },
    timeoutMs: 120_000,
  });
  t.is(r.code, 0, r.stderr);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const leaves = main.events.filter((e) => e.name.startsWith('[SAMPLE] '));
  const hot = leaves.find((e) => e.name === `[SAMPLE] movedHot [{${moves}} {${movedLine}}]`)?.calls ?? 0;
  const js = leaves.filter((e) => /\[\{(node:|\/)[^}]*\.?m?js\}|\[\{node:/.test(e.name)).reduce((a, e) => a + e.calls, 0);
  t.true(hot > 100 && hot > 0.8 * js, `${hot} samples of movedHot at line ${movedLine} of ${js} in JavaScript:\n${leaves.map((e) => `${e.name} ${e.calls}`).join('\n')}`);
});

test('the preload in a node without the runtime logs nothing, and says why when verbose', async (t) => {
  const { v8PreloadPath } = await import('../src/cli/run-node-jit.js');
  const quiet = await run(process.execPath, ['--require', v8PreloadPath, '-e', 'console.log("ran")'], { env: { LD_PRELOAD: undefined } });
  t.is(quiet.code, 0, quiet.stderr);
  t.is(quiet.stdout.trim(), 'ran');
  t.is(quiet.stderr.replace(/^npm warn.*\n/gm, ''), '');
  const verbose = await run(process.execPath, ['--require', v8PreloadPath, '-e', 'console.log("ran")'], {
    env: { LD_PRELOAD: undefined, HYPROF_VERBOSE: '1' },
  });
  t.is(verbose.stdout.trim(), 'ran');
  t.regex(verbose.stderr, /^hyprof: JIT code events not logged: no hyprof runtime is loaded in this process$/m);
});

test('HYPROF_V8_JIT must be a boolean', async (t) => {
  const r = await hyprof(['run', '--dir', join(tmpDir('node-v8jit-bad'), 'prof'), '--', process.execPath, '-e', '0'], {
    env: { HYPROF_V8_JIT: 'sometimes' },
  });
  t.not(r.code, 0);
  t.regex(r.stderr, /HYPROF_V8_JIT=sometimes is not a boolean \(1\/0, on\/off, true\/false, yes\/no\)/);
  t.notRegex(r.stderr, /\n\s+at /, 'a stack trace');
});

// ---- the log, on hand-made records ----

function section(records: Buffer[], dropped = 0n): Cursor {
  const body = Buffer.concat(records);
  const head = Buffer.alloc(16);
  head.writeBigUInt64LE(dropped, 0);
  head.writeBigUInt64LE(BigInt(body.length), 8);
  const buf = Buffer.concat([head, body]);
  return new Cursor('test.raw', buf, 0, buf.length, 'section JIT', false);
}

function codeRecord(start: bigint, size: bigint, name: string, lines: Array<[number, number]>): Buffer {
  const payload = 32 + lines.length * 8 + Buffer.byteLength(name);
  const len = 8 + Math.ceil(payload / 8) * 8;
  const b = Buffer.alloc(len);
  b.writeUInt32LE(len, 0);
  b.writeUInt32LE(1, 4);
  b.writeBigUInt64LE(start, 8);
  b.writeBigUInt64LE(size, 16);
  b.writeUInt32LE(1, 24);
  b.writeUInt32LE(Buffer.byteLength(name), 28);
  b.writeUInt32LE(lines.length, 32);
  lines.forEach(([o, l], i) => {
    b.writeUInt32LE(o, 40 + 8 * i);
    b.writeUInt32LE(l, 44 + 8 * i);
  });
  b.write(name, 40 + lines.length * 8);
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
  // no function of the file holds it (inlined from another file): the function's first line
  t.deepEqual(jit.lookup(0x1030n), [{ function: 'hot', file: '/a.js', line: 2 }]);
  t.deepEqual(jit.lookup(0x1040n), [{ function: 'hot', file: '/a.js', line: 2 }]);
  t.deepEqual(jit.lookup(0x2000n), [{ function: 'early', file: '/b.js', line: 12 }]);
  t.deepEqual(jit.lookup(0x2010n), [{ function: 'early', file: '/b.js', line: 10 }]);
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
