/**
 * The probe API for Node programs (src/events), measured for real: test/native/node_app.mjs runs
 * under the addon's runtime with sampling on, and its raw file is read back (events, call counts,
 * contexts, threads, samples per context); the resolved TAU profile is read back too.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RawProcess, RawThread } from '../src/samples/raw-model.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
import { hyprof, repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';

const hyprofModule = join(repoRoot, 'dist', 'src', 'index.js');
const appPath = join(testNativeDir, 'node_app.mjs');
/** The line where `function hotLoop` starts (what a perf map names; the JIT code events give the lines
 * of its body). */
const hotLine = readFileSync(appPath, 'utf8').split('\n').findIndex((l) => l.startsWith('function hotLoop')) + 1;

interface Measured {
  p: RawProcess;
  dir: string;
  stdout: string;
}

async function runApp(): Promise<Measured> {
  const dir = tmpDir('node-api');
  // the addon is loaded by the program itself (no preload), and with it the V8 part, which logs JIT
  // code events from then on (no perf map asked for)
  const flags = ['--interpreted-frames-native-stack'];
  const r = await run(process.execPath, [...flags, appPath], {
    env: { HYPROF_MODULE: hyprofModule, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000' },
  });
  if (r.code !== 0) throw new Error(`node_app.mjs failed (${r.code}):\n${r.stderr}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  if (files.length !== 1) throw new Error(`expected one raw file in ${dir}, found ${files.join(', ')}`);
  return { p: readRawFile(join(dir, files[0])), dir, stdout: r.stdout };
}

const measured = runApp();

// V8 leaves its perf map in /tmp: remove the one this test's program wrote
test.after.always(async () => {
  const m = await measured.catch(() => undefined);
  if (m) rmSync(perfMapPath(m.p.info.pid), { force: true });
});

/** Helpers over one raw process. */
function model(p: RawProcess) {
  const id = (name: string) => {
    const e = p.events.find((x) => x.name === name);
    if (!e) throw new Error(`no event '${name}' in ${p.events.map((x) => x.name).join(' | ')}`);
    return e.id;
  };
  const name = (ctx: bigint) => p.events.find((e) => e.id === p.contexts.get(ctx)?.event)?.name ?? '?';
  /** The event path of a context, outermost first (".TAU application => a => b"). */
  const path = (ctx: bigint): string => {
    const names: string[] = [];
    for (let c = ctx; c && p.contexts.has(c); c = p.contexts.get(c)!.parent) names.unshift(name(c));
    return names.join(' => ');
  };
  const stats = (t: RawThread, n: string) => t.stats.list().filter((s) => p.contexts.get(s.context)?.event === id(n));
  const calls = (t: RawThread, n: string) => stats(t, n).reduce((a, s) => a + s.calls, 0);
  const paths = (t: RawThread, n: string) => stats(t, n).map((s) => path(s.context)).sort();
  const samplesIn = (t: RawThread, n: string) =>
    t.samples.filter((s) => p.contexts.get(s.context)?.event === id(n)).reduce((a, s) => a + s.count, 0);
  return { id, path, stats, calls, paths, samplesIn };
}

test('regions, phase, parameters, timer and group: events, call counts and contexts', async (t) => {
  const { p, stdout } = await measured;
  t.regex(stdout, /main true/);
  const m = model(p);
  const main = p.threads.find((x) => x.index === 0)!;
  t.is(m.calls(main, 'setup'), 1);
  t.is(p.events.find((e) => e.name === 'setup')!.group, 'TAU_USER|TAU_PHASE');
  t.deepEqual(m.paths(main, 'init'), ['.TAU application => setup => init']);
  t.is(m.calls(main, 'solve'), 4);
  t.is(m.calls(main, 'solve  [ <n> = <0> ]  '), 2);
  t.is(m.calls(main, 'solve  [ <n> = <1> ]  '), 2);
  // kernel runs inside the specialised event: its contexts are partitioned by the parameter value
  t.deepEqual(m.paths(main, 'kernel'), [
    '.TAU application => solve  [ <n> = <0> ]   => kernel',
    '.TAU application => solve  [ <n> = <1> ]   => kernel',
  ]);
  t.is(m.calls(main, 'kernel'), 4);
  t.is(m.calls(main, 'io'), 2);
  t.is(m.calls(main, 'read'), 1);
  t.is(p.events.find((e) => e.name === 'read')!.group, 'IO');
  t.deepEqual(main.warnings, []);
});

test('overlapping async regions: inclusive time to settlement, children in their own region', async (t) => {
  const { p } = await measured;
  const m = model(p);
  const main = p.threads.find((x) => x.index === 0)!;
  for (const [region, inner, minWaitNs] of [
    ['fetchA', 'inA', 57e6],
    ['fetchB', 'inB', 47e6],
  ] as const) {
    t.is(m.calls(main, region), 1, region);
    t.deepEqual(m.paths(main, region), [`.TAU application => ${region}`]);
    // Regions started after each await are children of their own async region, not of the other
    // region that ran in between.
    t.deepEqual(m.paths(main, inner), [`.TAU application => ${region} => ${inner}`], inner);
    t.is(m.calls(main, inner), 2);
    const s = m.stats(main, region)[0];
    t.is(s.childCalls, 2, `${region} child calls`);
    // setTimeout waits its delay (to its millisecond granularity, hence 1.5 ms less per wait): the
    // inclusive time covers the awaits, the exclusive
    // time only the region's own code
    t.true(s.incl[0] >= minWaitNs, `${region} inclusive ${s.incl[0]} ns`);
    t.true(s.excl[0] < s.incl[0], `${region} exclusive ${s.excl[0]} < inclusive ${s.incl[0]}`);
  }
  // A plain function returning a promise: measured to settlement, under its parameter event too
  const load = m.stats(main, 'load')[0];
  t.true(load.incl[0] >= 23e6, `load inclusive ${load.incl[0]}`);
  t.is(m.calls(main, 'load  [ <part> = <3> ]  '), 1);
});

test('samples go to the running code: busy, not the suspended async region; the hot function', async (t) => {
  const { p } = await measured;
  const m = model(p);
  const main = p.threads.find((x) => x.index === 0)!;
  const busy = m.samplesIn(main, 'busy');
  const waiter = m.samplesIn(main, 'waiter');
  t.true(busy > 20, `busy ${busy} samples`);
  t.true(waiter <= 2, `waiter (suspended while busy ran) ${waiter} samples`);
  t.true(m.samplesIn(main, 'hot') > 30, `hot ${m.samplesIn(main, 'hot')} samples`);
  t.is(m.calls(main, 'waiter'), 1);
  t.deepEqual(m.paths(main, 'busy'), ['.TAU application => busy']);
});

test('a worker thread is its own thread profile; the main thread has none of its events', async (t) => {
  const { p, stdout } = await measured;
  t.regex(stdout, /worker true/);
  const m = model(p);
  const main = p.threads.find((x) => x.index === 0)!;
  const workers = p.threads.filter((x) => m.calls(x, 'worker task') > 0);
  t.is(workers.length, 1);
  t.not(workers[0].index, 0);
  t.regex(workers[0].name, /^worker \d+$/);
  t.is(m.calls(workers[0], 'worker task'), 3);
  t.deepEqual(m.paths(workers[0], 'worker task'), ['.TAU application => worker task']);
  t.is(m.stats(main, 'worker task').length, 0);
  t.is(m.calls(workers[0], 'hot'), 0);
});

test('the resolved TAU profile has the events, one file per thread', async (t) => {
  const { dir } = await measured;
  const out = join(dir, 'prof');
  const r = await hyprof(['resolve', dir, '-o', out]);
  t.is(r.code, 0, r.stderr);
  const prof = readTauProfileDir(out);
  t.true(prof.threads[0].length >= 2);
  const main = prof.threads[0].find((x) => x.thread === 0)!;
  const ev = (n: string) => main.events.find((e) => e.name === n);
  t.is(ev('fetchA')?.calls, 1);
  t.is(ev('.TAU application => fetchB => inB')?.calls, 2);
  t.is(ev('solve  [ <n> = <1> ]  ')?.calls, 2);
  t.truthy(main.events.find((e) => e.name.startsWith('[CONTEXT] hot')), 'CONTEXT event of hot');
});

test('the JIT-compiled hot function is named by function, file and line under its CONTEXT', async (t) => {
  const { dir } = await measured;
  const out = join(dir, 'prof-jit');
  const r = await hyprof(['resolve', dir, '-o', out]);
  t.is(r.code, 0, r.stderr);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  t.true(hotLine > 0);
  // the V8 part was started by the Node API module: the loop's own line, not the function's first
  const leaf = `[SAMPLE] hotLoop [{${appPath}} {${hotLine + 3}}]`;
  const flat = main.events.find((e) => e.name === leaf);
  t.truthy(flat, `${leaf} in ${main.events.filter((e) => e.name.startsWith('[SAMPLE]')).map((e) => e.name).join('\n')}`);
  t.false(existsSync(perfMapPath((await measured).p.info.pid)), 'a perf map was created');
  // under the CONTEXT of the region that ran it, not another one
  const underHot = main.events.filter((e) => e.name.startsWith('.TAU application => hot  => [CONTEXT] hot  => ') && e.name.endsWith(leaf));
  t.true(underHot.reduce((a, e) => a + e.calls, 0) > 10, `samples of hotLoop under [CONTEXT] hot: ${underHot.length} paths`);
  // the worker thread never ran 'hot'
  const worker = readTauProfileDir(out).threads[0].find((x) => x.events.some((e) => e.name === 'worker task'))!;
  t.false(worker.events.some((e) => e.name.includes('[CONTEXT] hot')));
});
