/**
 * `hyprof run -- node app.mjs`: the runtime is preloaded into node, and the program's own
 * `import ... from 'hyprof'` reaches that same runtime through the addon — one raw file, one profile
 * with the probes, the samples of every thread, and JavaScript frames named through V8's perf map.
 */
import test from 'ava';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/output/tau-reader.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { perfMapPath } from '../src/symbolize/perf-map.js';
import { hyprof, repoRoot, testNativeDir, tmpDir } from './helpers/native.js';

const appPath = join(testNativeDir, 'node_app.mjs');
const hotLine = readFileSync(appPath, 'utf8').split('\n').findIndex((l) => l.startsWith('function hotLoop')) + 1;

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
  const leaf = `[SAMPLE] hotLoop [{${appPath}} {${hotLine}}]`;
  const underHot = main.events.filter((e) => e.name.startsWith('.TAU application => hot  => [CONTEXT] hot  => ') && e.name.endsWith(leaf));
  t.true(underHot.reduce((a, e) => a + e.calls, 0) > 10, `${leaf} under [CONTEXT] hot`);
  // the worker's probes are on a thread of their own
  const worker = threads.filter((x) => x.events.some((e) => e.name === 'worker task' && e.calls === 3));
  t.is(worker.length, 1);
  t.not(worker[0].thread, 0);
});

test('hyprof run keeps the NODE_OPTIONS a user set and adds the perf map flags and the thread preload', async (t) => {
  const { childEnv, quoteNodeOption, threadPreload } = await import('../src/cli/cmd-run.js');
  const found = threadPreload();
  t.truthy(found, 'the built preload is found');
  const preload = quoteNodeOption(found!);
  // Node splits NODE_OPTIONS at spaces outside double quotes, with backslash escapes inside them
  t.is(quoteNodeOption('/opt/my tools/p.cjs'), '"/opt/my tools/p.cjs"');
  t.is(quoteNodeOption('/a/"q"\\b.cjs'), '"/a/\\"q\\"\\\\b.cjs"');
  t.is(quoteNodeOption('/plain/p.cjs'), '/plain/p.cjs');
  const env = childEnv({ NODE_OPTIONS: '--max-old-space-size=512 --perf-basic-prof' }, 'libhyprof.so', 'raw-dir', { sampling: true });
  t.is(env.NODE_OPTIONS, `--max-old-space-size=512 --perf-basic-prof --interpreted-frames-native-stack --require ${preload}`);
  t.is(childEnv({}, 'libhyprof.so', 'raw-dir', { sampling: true }).NODE_OPTIONS, `--perf-basic-prof --interpreted-frames-native-stack --require ${preload}`);
  // without sampling no perf map is asked for; the threads that run JavaScript are still marked
  t.is(childEnv({}, 'libhyprof.so', 'raw-dir', { sampling: false }).NODE_OPTIONS, `--require ${preload}`);
  // a nested hyprof run (or a user) that already has it does not add it twice
  t.is(childEnv({ NODE_OPTIONS: `--require ${preload}` }, 'libhyprof.so', 'raw-dir', { sampling: false }).NODE_OPTIONS, `--require ${preload}`);
});
