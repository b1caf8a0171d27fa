/**
 * `hyprof run -- node app.mjs`: the runtime is preloaded into node, and the program's own
 * `import ... from 'hyprof'` reaches that same runtime through the addon — one raw file, one profile
 * with the probes, the samples of every thread, and JavaScript frames named through V8's JIT code
 * events (the V8 part, loaded by hyprof run's preload), or V8's perf map where that part is not used.
 */
import test from 'ava';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
import { hyprof, repoRoot, run, testNativeDir, tmpDir } from './helpers/native.js';

const appPath = join(testNativeDir, 'node_app.mjs');
const hotLine = readFileSync(appPath, 'utf8').split('\n').findIndex((l) => l.startsWith('function hotLoop')) + 1;
/** The leaf of a sample in hotLoop: its first line (perf map) or a line of its body (JIT code events). */
const inHotLoop = (name: string) => new RegExp(`\\[SAMPLE\\] hotLoop \\[\\{${appPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\} \\{(\\d+)\\}\\]$`).exec(name);

async function runUnderHyprof(prefix: string, nodeFlags: string[]) {
  const dir = tmpDir(prefix);
  const out = join(dir, 'prof');
  const r = await hyprof(['run', '--dir', out, '--keep-raw', '--', process.execPath, ...nodeFlags, appPath], {
    env: { HYPROF_MODULE: join(repoRoot, 'dist', 'src', 'index.js'), NODE_OPTIONS: undefined },
  });
  const kept = /raw measurements kept in (\S+)/.exec(r.stderr)?.[1];
  const raws = kept ? readdirSync(kept).filter((f) => f.endsWith('.raw')) : [];
  // V8 leaves its perf map in /tmp: remove the ones of this run once resolved
  for (const f of raws) rmSync(perfMapPath(readRawFile(join(kept!, f)).info.pid), { force: true });
  return { r, out, raws };
}

test('preloaded runtime and the addon are one runtime; JIT frames named under their CONTEXT', async (t) => {
  // no V8 flags given: hyprof run adds the perf map flags through NODE_OPTIONS
  const { r, out, raws } = await runUnderHyprof('node-run', []);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /main true/);
  t.is(raws.length, 1, `raw files: ${raws.join(', ')}`);
  const threads = readTauProfileDir(out).threads[0];
  const main = threads.find((x) => x.thread === 0)!;
  const calls = (n: string) => main.events.find((e) => e.name === n)?.calls;
  t.is(calls('solve'), 4);
  t.is(calls('.TAU application => fetchA => inA'), 2);
  t.is(calls('.TAU application => fetchB => inB'), 2);
  const underHot = main.events.filter((e) => {
    const m = e.name.startsWith('.TAU application => hot  => [CONTEXT] hot  => ') && inHotLoop(e.name);
    return m && Number(m[1]) >= hotLine && Number(m[1]) <= hotLine + 5;
  });
  t.true(underHot.reduce((a, e) => a + e.calls, 0) > 10, `hotLoop (lines ${hotLine}-${hotLine + 5}) under [CONTEXT] hot`);
  // the worker's probes are on a thread of their own
  const worker = threads.filter((x) => x.events.some((e) => e.name === 'worker task' && e.calls === 3));
  t.is(worker.length, 1);
  t.not(worker[0].thread, 0);
});

test('hyprof run keeps the NODE_OPTIONS a user set and adds the V8 part preload, or the perf map flags, and the thread preload', async (t) => {
  const { childEnv, threadPreload } = await import('../src/run/run-measured.js');
  const { nodeJitPlan, optionWord, v8PreloadPath, withNodeJitFlags } = await import('../src/run/run-node-jit.js');
  const found = threadPreload();
  t.truthy(found, 'the built thread preload is found');
  const threads = `--require ${optionWord(found!)}`;
  const perfMap = nodeJitPlan({ HYPROF_V8_JIT: '0' });
  const env = childEnv({ NODE_OPTIONS: '--max-old-space-size=512 --perf-basic-prof' }, 'libhyprof.so', 'raw-dir', { sampling: true }, perfMap);
  t.is(env.NODE_OPTIONS, `--max-old-space-size=512 --perf-basic-prof --interpreted-frames-native-stack ${threads}`);
  t.is(childEnv({}, 'libhyprof.so', 'raw-dir', { sampling: true }, perfMap).NODE_OPTIONS, `--perf-basic-prof --interpreted-frames-native-stack ${threads}`);
  // without sampling no JIT naming is asked for; the threads that run JavaScript are still marked
  t.is(childEnv({}, 'libhyprof.so', 'raw-dir', { sampling: false }).NODE_OPTIONS, threads);
  // a nested hyprof run (or a user) that already has it does not add it twice
  t.is(childEnv({ NODE_OPTIONS: threads }, 'libhyprof.so', 'raw-dir', { sampling: false }).NODE_OPTIONS, threads);
  // the V8 part, built with the runtime: its preload instead of the perf map, added once
  const events = nodeJitPlan({});
  t.is(events.note, null);
  const withPreload = childEnv({ NODE_OPTIONS: '--max-old-space-size=512' }, 'libhyprof.so', 'raw-dir', { sampling: true }, events).NODE_OPTIONS!;
  t.is(withPreload, `--max-old-space-size=512 --require ${optionWord(v8PreloadPath)} --interpreted-frames-native-stack ${threads}`);
  t.is(childEnv({ NODE_OPTIONS: withPreload }, 'libhyprof.so', 'raw-dir', { sampling: true }, events).NODE_OPTIONS, withPreload);
  // a path with a space or a quote is one word of NODE_OPTIONS, as node reads it
  t.is(optionWord('/opt/my tools/p.cjs'), '"/opt/my tools/p.cjs"');
  t.is(optionWord('/a/"q"\\b.cjs'), '"/a/\\"q\\"\\\\b.cjs"');
  t.is(optionWord('/plain/p.cjs'), '/plain/p.cjs');
  const dir = join(tmpDir('node-options'), 'a "b" c');
  mkdirSync(dir);
  const preload = join(dir, 'p.cjs');
  writeFileSync(preload, "process.stdout.write('preloaded ');\n");
  const options = withNodeJitFlags(undefined, { flags: ['--require', optionWord(preload)], note: null });
  const r = await run(process.execPath, ['-e', 'console.log("ran")'], { env: { NODE_OPTIONS: options } });
  t.is(r.stdout.trim(), 'preloaded ran', r.stderr);
  // not built (a prebuilt install): the perf map, and why
  const missing = nodeJitPlan({}, '/nonexistent/hyprof_v8.node');
  t.deepEqual(missing.flags, ['--perf-basic-prof', '--interpreted-frames-native-stack']);
  t.regex(missing.note ?? '', /^V8's JIT code events are not used \(\/nonexistent\/hyprof_v8\.node is not built; docs\/install\.md\)/);
});
