/**
 * bench/node-programs: hyprof against `node --cpu-prof` on seven real npm programs of different kinds (one mostly WebAssembly) and a minified bundle
 * (bench/node-programs/: a formatter, prettier; a linter, eslint; a transpiler, @babel/core with
 * preset-env; a minifier, terser; a worker pool on worker_threads, piscina running terser in two
 * workers; an HTTP server, node:http under autocannon with 10 connections for a fixed number of
 * requests), working on this repository's own sources; a database compiled to WebAssembly (sql.js,
 * SQLite under Emscripten, holding src/'s lines); and a production bundle: the transpiler
 * bundled and minified by esbuild (hyprof's own dev dependency) into one file whose functions share a
 * handful of lines, so that functions inlined into others are told apart by source position only.
 *
 * The programs' packages are installed into bench/node-programs/ from its own lockfile (`npm ci`,
 * on the first run or with --install), never into hyprof's dependencies. Each program is measured
 * by bench/node-vs-cpuprof.ts (plain node, --cpu-prof at 1 ms, hyprof preloaded at 1 kHz and its
 * resolve, interleaved rounds, process CPU through wait4); this prints its full output per program,
 * then one summary table: CPU over plain node (medians) of --cpu-prof and of hyprof, the unresolved
 * share of each thread profile, the share and rank correlation of the top 20 functions with
 * --cpu-prof (all rounds added up; keyed by the sample's leaf, and by the innermost JavaScript frame
 * as --cpu-prof counts: bench/cpuprof-compare.ts), each beside --cpu-prof's odd rounds against its
 * even rounds keyed alike (the floor), the output sizes and
 * resolve's CPU against the program's; then each worker thread's agreement with its own `.cpuprofile`.
 * Run: node dist/bench/node-programs.js [rounds] [--install] [-- node-flags...]   (default 2 rounds)
 * Node flags after `--` go to every configuration's node, before the program: a diagnosis, e.g.
 * `-- --no-turbo-inlining` (V8's code events cannot say which function a position of optimised code
 * was inlined from: docs/node.md), never a measurement of the programs as they are.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { repoRoot } from '../test/helpers/native.js';

const dash = process.argv.indexOf('--', 2);
const args = process.argv.slice(2, dash >= 0 ? dash : undefined);
const nodeFlags = dash >= 0 ? process.argv.slice(dash + 1) : [];
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 2);
const folder = join(repoRoot, 'bench', 'node-programs');
if (args.includes('--install') || !existsSync(join(folder, 'node_modules', '.package-lock.json'))) {
  const r = spawnSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: folder, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci in ${folder} failed`);
}

// The minified bundle, built fresh for each run (a file of the run's own, never kept in the tree).
const bundleDir = mkdtempSync(join(tmpdir(), 'hyprof-bench-bundle-'));
const bundle = join(bundleDir, 'transpile.min.mjs');
{
  const r = spawnSync(
    join(repoRoot, 'node_modules', '.bin', 'esbuild'),
    [
      join(folder, 'transpile.mjs'), '--bundle', '--minify', '--platform=node', '--format=esm', `--outfile=${bundle}`, '--log-level=warning',
      // files.mjs finds the sources from its own folder; a bundle's require() of node's modules needs one
      `--define:import.meta.dirname=${JSON.stringify(folder)}`,
      "--banner:js=import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`esbuild failed: ${r.stderr}`);
}
process.on('exit', () => rmSync(bundleDir, { recursive: true, force: true }));

const programs: Array<[string, string[]]> = [
  ['formatter (prettier)', ['format.mjs']],
  ['linter (eslint)', ['lint.mjs']],
  ['transpiler (@babel/core, preset-env)', ['transpile.mjs']],
  ['minifier (terser)', ['minify.mjs']],
  ['worker pool (piscina, 2 workers)', ['pool.mjs']],
  ['HTTP server (node:http, autocannon)', ['server.mjs', '10000']],
  ['minified bundle (the transpiler, esbuild --bundle --minify)', [bundle]],
  ['database in WebAssembly (sql.js)', ['database.mjs']],
];

/** A markdown row of the output whose first cell is `label`: its cells. */
function row(out: string, label: string): string[] {
  const line = out.split('\n').find((l) => l.startsWith(`| ${label} |`));
  return line ? line.split('|').slice(1, -1).map((c) => c.trim()) : [];
}
const after = (out: string, prefix: string) => out.split('\n').find((l) => l.startsWith(prefix))?.slice(prefix.length).trim() ?? '?';

const summary: string[] = [];
/** The worker threads' agreement lines (bench/node-vs-cpuprof.ts compares each worker with its own .cpuprofile). */
const workers: string[] = [];
for (const [name, prog] of programs) {
  const r = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'bench', 'node-vs-cpuprof.js'), String(rounds), '--no-perf-map', '--', ...nodeFlags, resolvePath(folder, prog[0]), ...prog.slice(1)],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  console.log(`\n## ${name}\n\n${r.stdout}`);
  if (r.status !== 0) {
    console.log(`failed (exit ${r.status}): ${r.stderr}`);
    summary.push(`| ${name} | failed | | | | | | | |`);
    continue;
  }
  // the CPU table: | configuration | wall min | wall median | CPU min | CPU median | CPU vs plain (median) |
  const plain = row(r.stdout, 'plain node');
  const cpuprof = row(r.stdout, 'node --cpu-prof');
  const hyprof = row(r.stdout, 'hyprof (preloaded)');
  const resolve = row(r.stdout, 'hyprof resolve');
  // all rounds added up: | label | rank correlation | share correlation | mean diff | largest |
  const sections = r.stdout.split('### All ');
  const all = sections.length > 1 ? sections[1] : r.stdout;
  const leaf = row(all, "hyprof, by the sample's leaf");
  const floor = row(all, '--cpu-prof, odd rounds against even rounds (the floor)');
  const js = row(all, 'hyprof, by the innermost JavaScript frame');
  const jsFloor = row(all, '--cpu-prof by the innermost JavaScript frame, odd rounds against even rounds (its floor)');
  for (const l of r.stdout.split('\n')) if (/^\| worker \d+ \|/.test(l)) workers.push(`| ${name} ${l.slice(2)}`);
  const sizes = after(r.stdout, 'output:');
  const cpuprofMb = /\.cpuprofile ([\d.]+) MB/.exec(sizes)?.[1] ?? '?';
  const profMb = /, profile ([\d.]+) MB \(/.exec(sizes)?.[1] ?? '?';
  const ratio = (a: string, b: string) => (parseFloat(a) / parseFloat(b)).toFixed(2);
  summary.push(
    `| ${name} | ${plain[4] ?? '?'} | ${cpuprof[5] ?? '?'} | ${hyprof[5] ?? '?'} | ${after(r.stdout, 'unresolved samples by thread (last round):')} | ` +
      `${leaf[2] ?? '?'} / ${leaf[1] ?? '?'} (${floor[2] ?? '?'} / ${floor[1] ?? '?'}) | ${js[2] ?? '?'} / ${js[1] ?? '?'} (${jsFloor[2] ?? '?'} / ${jsFloor[1] ?? '?'}) | ${cpuprofMb} / ${profMb} | ${resolve[4] ?? '?'} (${ratio(resolve[4] ?? '', hyprof[4] ?? '')}) |`,
  );
}
console.log(`\n## Summary (${rounds} rounds each, interleaved; medians${nodeFlags.length ? `; node ${nodeFlags.join(' ')}` : ''})\n`);
console.log(
  '| program | plain node CPU | --cpu-prof CPU vs plain | hyprof CPU vs plain | unresolved, each thread | top-20 share / rank correlation by the leaf (floor: --cpu-prof odd vs even rounds) | by the innermost JavaScript frame (its floor) | .cpuprofile / hyprof profile MB | resolve CPU (÷ program CPU under hyprof) |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const l of summary) console.log(l);
if (workers.length > 0) {
  console.log('\n## Worker threads, each against its own .cpuprofile (all rounds added up)\n');
  console.log('| program | worker (threadId) | against --cpu-prof | rank correlation, top 20 | share correlation | mean share difference, points | largest |');
  console.log('|---|---|---|---|---|---|---|');
  for (const l of workers) console.log(l);
}
