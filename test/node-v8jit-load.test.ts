/**
 * When hyprof's V8 part does not start, it is said, with why: in a node of another ABI (a V8 part
 * built for another Node, helpers/v8-part.ts: node refuses it with its own message, kept whole), by
 * the preload `hyprof run` gives node and by a program that imports hyprof; a bad HYPROF_V8_JIT is
 * named by a program that imports hyprof (`hyprof run` refuses it: node-v8jit.test.ts); reasons that
 * are no failure (sampling off) only with HYPROF_VERBOSE. And the thread preload, when the addon
 * cannot load (a copy of the package without it), says worker threads are not measured, with why.
 * The program runs on in every case.
 */
import test from 'ava';
import { join } from 'node:path';
import { libPath, repoRoot, run, tmpDir } from './helpers/native.js';
import { packageWithoutAddon, packageWithV8PartOfAnotherAbi } from './helpers/v8-part.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Node's own refusal of a module of ABI `abi`, as one line. */
const abiReason = (part: string, abi: string) =>
  `The module '${part}' was compiled against a different Node.js version using NODE_MODULE_VERSION ${abi}. ` +
  `This version of Node.js requires NODE_MODULE_VERSION ${process.versions.modules}.`;

/** A program that imports hyprof from `root` (a package root), loads its addon, and starts a worker that does too. */
const importer = (root: string) => [
  '--input-type=module',
  '-e',
  `const m = ${JSON.stringify(join(root, 'dist', 'src', 'index.js'))};
   const h = await import(m); h.loadAddon();
   const { Worker } = await import('node:worker_threads');
   await new Promise((ok) => new Worker('import(' + JSON.stringify(m) + ').then((h) => h.loadAddon())', { eval: true }).on('exit', ok));
   console.log('ran');`,
];

const quietEnv = (dir: string) => ({ HYPROF_RAW_DIR: dir, HYPROF_DIR: dir, HYPROF_RESOLVE: '0', LD_PRELOAD: undefined, NODE_OPTIONS: undefined });

test('the preload in a node of another ABI says so once, with node\'s reason, and the program runs', async (t) => {
  const pkg = packageWithV8PartOfAnotherAbi();
  const preload = join(pkg.root, 'dist', 'src', 'events', 'v8-jit-preload.cjs');
  const program = "const { Worker } = require('node:worker_threads'); new Worker('0', { eval: true }).on('exit', () => console.log('ran'));";
  const r = await run(process.execPath, ['--require', preload, '-e', program], { env: { LD_PRELOAD: undefined, NODE_OPTIONS: undefined } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'ran');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('hyprof:'));
  t.is(lines.length, 1, r.stderr);
  t.regex(
    lines[0],
    new RegExp(
      `^hyprof: ${esc(pkg.part)} does not load in this node ${esc(process.version)} \\(${esc(abiReason(pkg.part, pkg.abi))} .*\\): ` +
        `its JavaScript frames stay UNRESOLVED; HYPROF_V8_JIT=0 names them from V8's perf map instead, or rebuild hyprof with this node \\(docs/install\\.md\\)$`,
    ),
  );
});

test('a program that imports hyprof says once why the V8 part does not load, with node\'s reason, and runs', async (t) => {
  const pkg = packageWithV8PartOfAnotherAbi();
  const dir = tmpDir('v8jit-import-abi');
  const r = await run(process.execPath, importer(pkg.root), { env: { ...quietEnv(dir), HYPROF_SAMPLING: '1' } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'ran');
  const said = r.stderr.split('\n').filter((l) => l.includes('JIT code events not logged'));
  t.is(said.length, 1, r.stderr);
  t.regex(
    said[0],
    new RegExp(
      `^hyprof: JIT code events not logged: ${esc(pkg.part)} does not load in this node ${esc(process.version)} \\(${esc(abiReason(pkg.part, pkg.abi))} .*\\); ` +
        `JavaScript frames are named only when node runs with --perf-basic-prof \\(docs/node\\.md\\)$`,
    ),
  );
});

test('a program that imports hyprof names a HYPROF_V8_JIT that is no boolean, once, and runs with it on', async (t) => {
  const dir = tmpDir('v8jit-import-bad');
  const r = await run(process.execPath, importer(repoRoot), { env: { ...quietEnv(dir), HYPROF_SAMPLING: '1', HYPROF_V8_JIT: 'sometimes' } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'ran');
  const said = r.stderr.split('\n').filter((l) => l.includes('HYPROF_V8_JIT'));
  t.deepEqual(said, ['hyprof: HYPROF_V8_JIT=sometimes is not a boolean (1/0, on/off, true/false, yes/no); using 1'], r.stderr);
  t.notRegex(r.stderr, /JIT code events not logged/, 'the V8 part started');
});

test('a program that imports hyprof with sampling off says why the V8 part is not started only with HYPROF_VERBOSE', async (t) => {
  const dir = tmpDir('v8jit-import-off');
  const quiet = await run(process.execPath, importer(repoRoot), { env: { ...quietEnv(dir), HYPROF_SAMPLING: '0' } });
  t.is(quiet.code, 0, quiet.stderr);
  t.notRegex(quiet.stderr, /JIT code events/);
  const verbose = await run(process.execPath, importer(repoRoot), { env: { ...quietEnv(dir), HYPROF_SAMPLING: '0', HYPROF_VERBOSE: '1' } });
  t.is(verbose.code, 0, verbose.stderr);
  t.regex(verbose.stderr, /^hyprof: JIT code events not logged: sampling is off; JavaScript frames are named only when node runs with --perf-basic-prof \(docs\/node\.md\)$/m);
});

test('the thread preload without the addon says once that worker threads are not measured, with why, and the program runs', async (t) => {
  const root = packageWithoutAddon();
  const preload = join(root, 'dist', 'src', 'events', 'thread-preload.cjs');
  const dir = tmpDir('thread-preload-no-addon');
  const program = "const { Worker } = require('node:worker_threads'); new Worker('0', { eval: true }).on('exit', () => console.log('ran'));";
  // the runtime preloaded, as `hyprof run` does (the preload acts only then)
  const r = await run(process.execPath, ['--require', preload, '-e', program], { env: { ...quietEnv(dir), LD_PRELOAD: libPath } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'ran');
  const said = r.stderr.split('\n').filter((l) => l.includes('worker threads are not measured'));
  t.is(said.length, 1, r.stderr);
  t.regex(
    said[0],
    new RegExp(
      `^hyprof: worker threads are not measured: the addon could not be loaded \\(No native build was found for .*node=${esc(process.versions.node)} loaded from: ${esc(root)}\\); ` +
        'HYPROF_NODE_THREADS=all measures every thread from its start$',
    ),
  );
});
