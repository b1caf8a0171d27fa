/**
 * `hyprof export --format pprof` read by Google's pprof itself (built offline from Debian's Go
 * sources, helpers/google-pprof.ts), as a user runs it, symbolization and demangling on: every frame
 * the TAU profile names keeps its name (OpenMP's `<OpenMP barrier wait>` too, not `<unknown>`),
 * every metric of a multi-metric run is a sample type of its own (`-sample_index`), and an MPI
 * run's samples carry `rank`, `thread` (the viewer's words) and `thread name` labels.
 */
import test from 'ava';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { googlePprofMissing, runPprof } from './helpers/google-pprof.js';

const missing = googlePprofMissing();
const maybe = missing ? test.skip : test.serial;
if (missing) test('Google pprof is available', (t) => t.fail(`cannot build Google pprof: ${missing}`));

/** Threads that wait at the barrier of each region while one works longer: OpenMP's placeholder frames. */
const OMP_SOURCE = `#include <omp.h>
#include <stdio.h>
double work(long n) { double s = 0; for (long i = 0; i < n; i++) s += i * 0.5; return s; }
int main(void) {
  double t = 0;
  for (int r = 0; r < 30; r++) {
#pragma omp parallel reduction(+:t)
    t += work(400000L * (omp_get_thread_num() + 1));
  }
  printf("%f\\n", t);
  return 0;
}
`;

let omp = '';
let multi = '';
test.before(async () => {
  if (missing) return;
  const root = tmpDir('export-gpprof');
  const src = join(root, 'omp_wait.c');
  writeFileSync(src, OMP_SOURCE);
  const exe = compileC('omp_wait', [src], { cc: 'clang', cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'], link: false });
  omp = join(root, 'omp');
  multi = join(root, 'multi');
  const env = { OMP_NUM_THREADS: '3' };
  const [a, b] = await Promise.all([
    hyprof(['run', '--dir', omp, '--', exe], { env }),
    hyprof(['run', '--dir', multi, '--', exe], { env: { ...env, HYPROF_METRICS: 'TIME:CPU_TIME:page-faults' } }),
  ]);
  for (const r of [a, b]) if (r.code !== 0) throw new Error(r.stderr);
});

/** Names of the `-top` table of pprof (its last column), every node shown. */
function topNames(text: string): string[] {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => /^\s+flat\s+flat%/.test(l));
  return lines.slice(head + 1).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/).slice(5).join(' '));
}

maybe('OpenMP: every frame the TAU profile names keeps its name in pprof -top (no <unknown>)', async (t) => {
  const out = join(omp, 'p.pb.gz');
  const r = await hyprof(['export', omp, '--format', 'pprof', '-o', out]);
  t.is(r.code, 0, r.stderr);
  const names = topNames(runPprof(['-top', '-nodecount=1000', '-nodefraction=0', out]));
  t.false(names.includes('<unknown>'), names.join('\n'));
  // The placeholders the TAU profile has ([SAMPLE] <OpenMP ...>) are functions of their own in pprof.
  const tau = readdirSync(omp).filter((f) => f.startsWith('profile.')).map((f) => readFileSync(join(omp, f), 'utf8')).join('\n');
  const placeholders = [...new Set([...tau.matchAll(/\[SAMPLE\] (<OpenMP [^>]+>)/g)].map((m) => m[1]))];
  t.true(placeholders.length > 0, 'the run has OpenMP placeholder frames');
  for (const p of placeholders) t.true(names.includes(p), `${p} in ${names.join(' | ')}`);
  t.true(names.includes('work'));
});

maybe('a multi-metric run: each metric is a sample type of its own; -sample_index picks it', async (t) => {
  const out = join(multi, 'p.pb.gz');
  const r = await hyprof(['export', multi, '--format', 'pprof', '-o', out]);
  t.is(r.code, 0, r.stderr);
  for (const [index, type] of [['time', 'time'], ['cpu_time', 'cpu_time'], ['page-faults', 'page-faults']]) {
    const text = runPprof(['-top', `-sample_index=${index}`, out]);
    t.regex(text, new RegExp(`^Type: ${type}$`, 'm'));
    t.true(topNames(text).length > 0);
  }
  // The default is the first metric; --metric still exports that one alone.
  t.regex(runPprof(['-top', out]), /^Type: time$/m);
  const one = join(multi, 'one.pb.gz');
  t.is((await hyprof(['export', multi, '--format', 'pprof', '--metric', 'CPU_TIME', '-o', one])).code, 0);
  t.regex(runPprof(['-top', one]), /^Type: cpu_time$/m);
  t.throws(() => runPprof(['-top', '-sample_index=page-faults', one]));
});

maybe('MPI: samples carry rank, thread (as the viewer says it) and thread name labels', async (t) => {
  const raw = tmpDir('export-gpprof-ranks');
  generateRanks(raw, { ranks: 3, threads: 2, samples: 10 });
  const dir = tmpDir('export-gpprof-mpi');
  t.is((await hyprof(['resolve', raw, '-o', dir])).code, 0);
  const out = join(dir, 'p.pb.gz');
  t.is((await hyprof(['export', dir, '--format', 'pprof', '-o', out])).code, 0);
  const tags = runPprof(['-tags', out]);
  t.regex(tags, /^ rank: Total/m);
  for (const r of ['0', '1', '2']) t.regex(tags, new RegExp(`\\): ${r}$`, 'm'));
  t.regex(tags, /\): rank 1 · thread 0$/m);
  t.regex(tags, /\): rank 2 · thread 1 "OpenMP worker 1"$/m);
  t.regex(tags, /^ thread name: Total/m);
  // -tagfocus takes the viewer's words.
  const focused = runPprof(['-top', '-tagfocus=rank=1', out]);
  t.regex(focused, /Active filters:\n\s+tagfocus=rank=1/);
});
