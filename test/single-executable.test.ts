/**
 * The single executable (scripts/build-sea.sh): the analysis commands on a machine without Node.
 * Built once for the file; a raw file from a real sampled run is resolved, reported, exported and
 * viewed with node, npm and npx gone from the PATH (llvm-symbolizer stays: resolve uses it).
 */
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertConformant } from './helpers/conformance.js';
import { NODE, pathWithout, toolsFound } from './helpers/hidden-path.js';
import { compileC, hyprof, repoRoot, run, tmpDir } from './helpers/native.js';

const top = tmpDir('sea');
const seaBuild = spawnSync('bash', ['scripts/build-sea.sh', top], { cwd: repoRoot, encoding: 'utf8' });
const sea = join(top, 'hyprof');
const noNode = pathWithout(NODE);
const env = { PATH: noNode };

/** A raw file of a sampled run of the reference-shaped program (probes and samples). */
const raw = (async () => {
  const exe = compileC('assemble_matmult', ['assemble_matmult.c'], { cflags: ['-O2', '-g'] });
  const dir = tmpDir('sea-raw');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '1' } });
  if (r.code !== 0) throw new Error(r.stderr);
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.raw'))!);
})();

test('the single executable is built, and its PATH has no node', (t) => {
  t.is(seaBuild.status, 0, seaBuild.stderr);
  t.regex(seaBuild.stdout, /^build-sea: .*hyprof \(\d+ MB\)$/m);
  t.deepEqual(toolsFound(noNode, ['node', 'nodejs', 'npm', 'npx']), []);
});

test('resolve and report without node give what the package gives', async (t) => {
  const rawFile = await raw;
  const seaOut = tmpDir('sea-prof');
  const started = Date.now();
  // Many workers asked for: the single executable resolves in its main thread all the same.
  const r = await run(sea, ['resolve', rawFile, '-o', seaOut], { env: { ...env, HYPROF_RESOLVE_WORKERS: '4' } });
  t.log(`resolve with the single executable: ${Date.now() - started} ms`);
  t.is(r.code, 0, r.stderr);
  assertConformant(seaOut);
  const nodeOut = tmpDir('sea-prof-node');
  t.is((await hyprof(['resolve', rawFile, '-o', nodeOut])).code, 0);
  const seaReport = await run(sea, ['report', seaOut, '--limit', '20'], { env });
  t.is(seaReport.code, 0, seaReport.stderr);
  t.regex(seaReport.stdout, /\bmatrixMultiply\b/);
  t.regex(seaReport.stdout, / multiply \[\{.*assemble_matmult\.c\} \{10\}\]/, 'samples named by llvm-symbolizer');
  const nodeReport = await hyprof(['report', nodeOut, '--limit', '20']);
  // The same report but for the directory named in its first line.
  const body = (text: string): string => text.slice(text.indexOf('\n'));
  t.is(body(seaReport.stdout), body(nodeReport.stdout));
  t.true(seaReport.stdout.startsWith(`Profile ${seaOut}: `));
  // The version in the profile's metadata comes from the executable's assets.
  const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  t.true(readFileSync(join(seaOut, 'profile.0.0.0'), 'utf8').includes(`<attribute><name>hyprof Version</name><value>${version}</value></attribute>`));
  t.is((await run(sea, ['--version'], { env })).stdout.trim(), version);
});

test('export without node: pprof and speedscope', async (t) => {
  const rawFile = await raw;
  const prof = tmpDir('sea-export');
  t.is((await run(sea, ['resolve', rawFile, '-o', prof], { env })).code, 0);
  const speedscope = join(prof, 'out.speedscope.json');
  const s = await run(sea, ['export', prof, '--format', 'speedscope', '-o', speedscope], { env });
  t.is(s.code, 0, s.stderr);
  const doc = JSON.parse(readFileSync(speedscope, 'utf8')) as { profiles: unknown[]; shared: { frames: Array<{ name: string }> } };
  t.true(doc.profiles.length > 0);
  t.true(doc.shared.frames.some((f) => f.name.startsWith('matrixMultiply')));
  const pprof = join(prof, 'out.pb.gz');
  const p = await run(sea, ['export', prof, '--format', 'pprof', '-o', pprof], { env });
  t.is(p.code, 0, p.stderr);
  t.deepEqual([...readFileSync(pprof).subarray(0, 2)], [0x1f, 0x8b], 'gzip');
});

test('view without node serves the page, its assets and the API over loopback, and stops on SIGTERM', async (t) => {
  const rawFile = await raw;
  const prof = tmpDir('sea-view');
  t.is((await run(sea, ['resolve', rawFile, '-o', prof], { env })).code, 0);
  const child = spawn(sea, ['view', prof, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) ok(m[1]);
    });
    child.on('exit', () => fail(new Error(`view exited: ${stderr}`)));
  });
  const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));
  const page = await fetch(url);
  t.is(page.status, 200);
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+)"/g)].map((m) => m[1]);
  t.true(assets.length > 0, html);
  for (const a of assets) {
    const r = await fetch(new URL(a, url));
    t.is(r.status, 200, a);
    t.true((await r.arrayBuffer()).byteLength > 0, a);
  }
  t.is((await fetch(new URL('assets/nothing-here.js', url))).status, 404);
  const answer = await fetch(new URL('api/summary', url));
  t.is(answer.status, 200);
  const summary = (await answer.json()) as { metrics: string[]; threadCount: number; eventCount: number };
  t.deepEqual(summary.metrics, ['TIME']);
  t.true(summary.threadCount >= 1 && summary.eventCount > 1, JSON.stringify(summary));
  child.kill('SIGTERM');
  t.is(await exited, 0, stderr);
});

test('run and config without a runtime installed beside the executable say what to do', async (t) => {
  const lib = join(top, '..', 'lib', 'libhyprof.so');
  for (const args of [['run', '--', '/bin/true'], ['config', '--libs']]) {
    const r = await run(sea, args, { env });
    t.is(r.code, 1, args.join(' '));
    t.is(
      r.stderr,
      `hyprof: this hyprof is the single executable, and no runtime is installed beside it (${join(lib)} is missing): install the runtime with 'make install PREFIX=...' from the hyprof sources, or use the npm package (docs/install.md)\n`,
    );
  }
});
