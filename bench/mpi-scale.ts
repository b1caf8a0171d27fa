/**
 * bench/mpi-scale: resolving and reporting a run of many ranks. Generates the raw files of
 * `ranks` ranks x `threads` threads (test/helpers/gen-ranks.ts: realistic files, symbolized for
 * real), then, for each configuration, interleaved over `rounds`:
 *   resolve, main thread      hyprof resolve with HYPROF_RESOLVE_WORKERS=0
 *   resolve, workers          the default (one worker per core, up to 8)
 *   resolve --format merged   tauprofile.xml
 *   report                    hyprof report on the thread files (one pass, bounded memory)
 *   report --mpi              the MPI accounting (statistics over ranks folded rank by rank)
 *   report --diagnose         the MPI imbalance diagnosis (and the two ranks it reads again)
 *   export pprof / speedscope / collapsed   one thread at a time
 *   view, first page          hyprof view until the page's first answers (bench/view-first-page.ts:
 *                             CPU and peak RSS of the server from /proc, wall to the last answer)
 *   TAU's reader              test/tools/tau-reader (TAU's own Java reader) on the same thread files
 * with wall time, CPU time (user + system, workers included) and peak resident memory from GNU
 * time. Run: node dist/bench/mpi-scale.js [ranks] [threads] [rounds] [all|reports] [step,...]; `reports`
 * resolves once (workers) and measures the reports, exports and TAU's reader only (large rank counts);
 * a list of words measures only the steps whose names hold one of them (`--mpi,collapsed`), beside
 * the resolve they need.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, tmpDir } from '../test/helpers/native.js';
import { tauReaderPath } from '../test/helpers/tau-reader.js';
import { generateRanks } from '../test/helpers/gen-ranks.js';
import { viewFirstPage } from './view-first-page.js';

const ranks = Number(process.argv[2] ?? 1024);
const threads = Number(process.argv[3] ?? 4);
const rounds = Number(process.argv[4] ?? 3);
const reportsOnly = process.argv[5] === 'reports';
const only = process.argv[6]?.split(',').filter(Boolean);
const STEPS = ['resolve, main thread', 'resolve, workers', 'resolve --format merged', 'report', 'report --mpi', 'report --diagnose', 'report (merged file)',
  'export --format pprof', 'export --format speedscope', 'export --format collapsed', 'view, first page', "TAU's reader (tau-reader --strict)"];
const unknown = only?.filter((w) => !STEPS.some((k) => k.includes(w)));
if (unknown?.length) {
  console.error(`mpi-scale: no step named by ${unknown.map((w) => `'${w}'`).join(', ')}; the steps: ${STEPS.join('; ')}`);
  process.exit(2);
}
/** Whether the step named `k` is measured (every step when no list was given). */
const wanted = (k: string) => !only || only.some((w) => k.includes(w));
const raw = tmpDir('bench-scale-raw');
const t0 = Date.now();
const files = generateRanks(raw, { ranks, threads });
const rawBytes = files.reduce((n, f) => n + statSync(f).size, 0);
console.log(`machine: ${cpus().length} x ${cpus()[0]?.model}; ${ranks} ranks x ${threads} threads, ${(rawBytes / 2 ** 20).toFixed(0)} MiB of raw files (generated in ${((Date.now() - t0) / 1000).toFixed(1)} s); ${rounds} rounds`);

interface Measure {
  wall: number;
  cpu: number;
  rssMiB: number;
}

function timed(args: string[], env: Record<string, string> = {}, command = [process.execPath, cliPath]): Measure {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', ...command, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`${command[command.length - 1]} ${args.join(' ')} failed:\n${r.stderr.slice(-2000)}`);
  const [wall, user, sys, rss] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { wall, cpu: user + sys, rssMiB: rss / 1024 };
}

const results = new Map<string, Measure[]>();
const keep = (k: string, m: () => Measure | Promise<Measure>) => (wanted(k) ? Promise.resolve(m()).then((x) => void results.set(k, [...(results.get(k) ?? []), x])) : Promise.resolve());
let outSize = '';
for (let round = 0; round < rounds; round++) {
  const a = tmpDir('bench-scale-a');
  if (!reportsOnly) await keep('resolve, main thread', () => timed(['resolve', raw, '-o', a], { HYPROF_RESOLVE_WORKERS: '0' }));
  const b = tmpDir('bench-scale-b');
  // The thread files every later step reads: made whether or not this step is listed.
  const made = timed(['resolve', raw, '-o', b]);
  await keep('resolve, workers', () => made);
  const c = tmpDir('bench-scale-c');
  if (!reportsOnly) await keep('resolve --format merged', () => timed(['resolve', raw, '-o', c, '--format', 'merged']));
  await keep('report', () => timed(['report', b]));
  await keep('report --mpi', () => timed(['report', b, '--mpi']));
  await keep('report --diagnose', () => timed(['report', b, '--diagnose']));
  if (!reportsOnly) await keep('report (merged file)', () => timed(['report', c]));
  for (const f of ['pprof', 'speedscope', 'collapsed']) await keep(`export --format ${f}`, () => timed(['export', b, '--format', f, '-o', join(a, `out.${f}`)]));
  await keep('view, first page', () => viewFirstPage(b));
  // TAU's own reader (Java) on the same files: it holds the whole profile; where it cannot, said.
  try {
    await keep("TAU's reader (tau-reader --strict)", () => timed(['--strict', b], {}, [tauReaderPath]));
  } catch (e) {
    console.log(`TAU's reader did not finish: ${(e as Error).message.split('\n').slice(-3).join(' ')}`);
  }
  if (round === 0) {
    const pf = readdirSync(b).filter((f) => f.startsWith('profile.'));
    const bytes = pf.reduce((n, f) => n + statSync(join(b, f)).size, 0);
    outSize = `${pf.length} thread files, ${(bytes / 2 ** 20).toFixed(0)} MiB` + (reportsOnly || !wanted('merged') ? '' : `; tauprofile.xml ${(statSync(join(c, 'tauprofile.xml')).size / 2 ** 20).toFixed(0)} MiB`);
  }
  for (const d of [a, b, c]) rmSync(d, { recursive: true, force: true });
}
console.log(`output: ${outSize}`);
console.log('| step | wall s (min / median) | CPU s (min / median) | peak RSS MiB (max) |');
console.log('|---|---|---|---|');
const sorted = (xs: number[]) => [...xs].sort((p, q) => p - q);
for (const [k, ms] of results) {
  const w = sorted(ms.map((m) => m.wall));
  const c = sorted(ms.map((m) => m.cpu));
  const mid = Math.floor(ms.length / 2);
  console.log(`| ${k} | ${w[0].toFixed(1)} / ${w[mid].toFixed(1)} | ${c[0].toFixed(1)} / ${c[mid].toFixed(1)} | ${Math.max(...ms.map((m) => m.rssMiB)).toFixed(0)} |`);
}
rmSync(raw, { recursive: true, force: true });
