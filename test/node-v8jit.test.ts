/**
 * JavaScript frames named from V8's JIT code events (native/addon/v8, src/symbolize/jit-code.ts;
 * docs/node.md, "JavaScript frames in samples"), measured for real: test/native/node_jit_lines.mjs
 * under `hyprof run -- node`. The sampled line of optimised code (not only the function's first line),
 * the line of the call in an optimised caller's frame, a worker thread's code, no perf map; and the
 * fallback to V8's perf map with HYPROF_V8_JIT=0; a sample in a function inlined into another on the
 * same line (test/native/node_jit_one_line.mjs, minified) counted as --cpu-prof counts it; WebAssembly code
 * (test/native/node_wasm.mjs) named as --cpu-prof names it, either way. The log's reader and
 * lookup on hand-made records are tested in raw-jit.test.ts.
 */
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
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
  /**
   * Flat sample events of a thread: name -> sampled time in ms. Time, not the count of samples: on a
   * loaded machine timer signals merge (fewer samples, each carrying more time), so counts vary with
   * the load and the time does not.
   */
  const flat = (thread: number) =>
    new Map(
      (threads.find((t) => t.thread === thread)?.events ?? [])
        .filter((e) => e.name.startsWith('[SAMPLE] '))
        .map((e) => [e.name, e.excl / 1000] as const),
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
  t.true(hot > 100, `ms sampled in jitHot on its hot line ${hotLine}: ${hot}; jitHot: ${[...main.keys()].filter((n) => n.includes('jitHot')).join(', ')}`);
  t.true(hot / all > 0.8, `${hot} of ${all} ms sampled in jitHot on line ${hotLine}`);
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
    `ms sampled in jitHot on line ${hotLine} per other thread: ${workers.join(', ')}`,
  );
});

test('minified code: a sample in a function inlined into another on the same line is the outer function\'s, as --cpu-prof counts it', async (t) => {
  if (!withEvents) return t.fail('no V8 part');
  const oneLine = join(testNativeDir, 'node_jit_one_line.mjs');
  const dir = tmpDir('node-v8jit-one-line');
  const out = join(dir, 'prof');
  // V8's trace of its inlining decisions goes to the program's stdout: it shows that this run's
  // optimised hot holds helper, so the samples in helper's loop lie in hot's code, at line 1.
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, '--trace-turbo-inlining', oneLine], {
    cwd: dir,
    env: { NODE_OPTIONS: undefined },
    timeoutMs: 120_000,
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /Inlining .*<SharedFunctionInfo helper>.* into .*<SharedFunctionInfo hot>/, 'V8 inlined helper into hot');
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const ms = (fn: string) =>
    main.events.filter((e) => e.name === `[SAMPLE] ${fn} [{${oneLine}} {1}]`).reduce((a, e) => a + e.excl / 1000, 0);
  const [helper, hot] = [ms('helper'), ms('hot')];
  // helper's loop runs inside hot's optimised code: at the sampled instruction that is hot's time,
  // as --cpu-prof charges it (an inlined function is a frame of its own in callers' frames only:
  // raw-jit.test.ts, node-v8log.test.ts).
  t.true(hot > 500 && hot > 10 * helper, `ms sampled in hot ${hot}, in helper ${helper}`);
});

for (const [how, env] of [
  ["V8's code events", {}],
  ["V8's perf map (HYPROF_V8_JIT=0)", { HYPROF_V8_JIT: '0' }],
] as const) {
  test(`WebAssembly code is named as --cpu-prof names it, from ${how}`, async (t) => {
    if (!withEvents && how.includes('events')) return t.fail('no V8 part');
    const wasm = join(testNativeDir, 'node_wasm.mjs');
    const dir = tmpDir('node-wasm');
    const out = join(dir, 'prof');
    const r = await hyprof(['run', '--dir', out, '--', process.execPath, wasm], { cwd: dir, env: { NODE_OPTIONS: undefined, ...env }, timeoutMs: 120_000 });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /^wasm: \d+ calls/m);
    const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
    const samples = main.events.filter((e) => e.name.startsWith('[SAMPLE] '));
    const total = samples.reduce((a, e) => a + e.excl, 0);
    const ms = (fn: string) => samples.find((e) => e.name === `[SAMPLE] ${fn} [{wasm://wasm} {0}]`)?.excl ?? 0;
    // about half a second in each module's loop, out of node's start-up and the run: unnamed, and
    // named by its module's name section
    for (const fn of ['wasm-function[0]', 'named_spin']) t.true(ms(fn) > 0.25 * total, `${fn}: ${ms(fn) / 1000} of ${total / 1000} ms sampled`);
    t.deepEqual(main.events.map((e) => e.name).filter((n) => /JS:wasm|-(turbofan|liftoff)\b/.test(n)), []);
  });
}

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
  // functions moved later to the hot function's earlier addresses. The loop runs 1.6 s, so that node's
  // start-up (its JavaScript 0.1-0.3 s, more on a loaded machine) stays well under a fifth.
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
  // sampled time in ms, not sample counts, which vary with the machine's load (see measure)
  const hot = (leaves.find((e) => e.name === `[SAMPLE] movedHot [{${moves}} {${movedLine}}]`)?.excl ?? 0) / 1000;
  const js = leaves.filter((e) => /\[\{(node:|\/)[^}]*\.?m?js\}|\[\{node:/.test(e.name)).reduce((a, e) => a + e.excl / 1000, 0);
  t.true(hot > 100 && hot > 0.8 * js, `${hot} ms sampled in movedHot at line ${movedLine} of ${js} in JavaScript:\n${leaves.map((e) => `${e.name} ${e.excl}`).join('\n')}`);
});

test('the preload in a node without the runtime logs nothing, and says why when verbose', async (t) => {
  const { v8PreloadPath } = await import('../src/run/run-node-jit.js');
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
