/**
 * bench/trace-samples: what recording each sample in the trace (HYPROF_TRACE=1 with sampling,
 * docs/trace.md "Samples") adds to a sample, and what a sample takes on disk:
 *  1. instructions per sample (valgrind --tool=callgrind, which a loaded machine does not disturb):
 *     the sampling handler's inclusive count per signal, traced and untraced, on bench/sampling-
 *     handler.c's loop 30 calls below its timer's frame (depth 10 and to the timer's frame), and the
 *     trace record's own (hp_trace_sample);
 *  2. bytes per sample: the trace file the runtime writes (a record of 16 + 8 × frames bytes) and the
 *     OTF2 archive the resolve writes from it (CallingContextSample events and the calling-context
 *     definitions), from a run of test/native/trace_samples.c sampled against the same run unsampled.
 * The interleaved CPU and handler times of the same configurations are bench/sampling.ts's traced rows.
 * Run: node dist/bench/trace-samples.js [iterations] [phase_ms]   (default 20,000,000 and 500)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, repoRoot, tmpDir } from '../test/helpers/native.js';
import { buildHandlerBench } from './handler-rounds.js';
import { callgrindInclusive, conditions, fmt } from './lib.js';

const iters = process.argv[2] ?? '20000000';
const phaseMs = Number(process.argv[3] ?? 500);
const work = tmpDir('bench-trace-samples');
const before = conditions();

// ---- 1. instructions per sample ----
const handlerExe = buildHandlerBench(work);

const configs = [
  { name: 'libunwind, depth 10', env: { HYPROF_UNWIND_DEPTH: '10' } },
  { name: 'libunwind, depth 10, traced', env: { HYPROF_UNWIND_DEPTH: '10', HYPROF_TRACE: '1' } },
  { name: 'libunwind, to the timer frame (31 frames)', env: { HYPROF_UNWIND_DEPTH: '0' } },
  { name: 'libunwind, to the timer frame, traced', env: { HYPROF_UNWIND_DEPTH: '0', HYPROF_TRACE: '1' } },
];
const perSample: Record<string, number> = {};
const rows: string[] = [];
for (const c of configs) {
  const raw = join(work, 'raw');
  rmSync(raw, { recursive: true, force: true });
  const out = join(work, 'cg.out');
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, handlerExe, 'hyprof', iters, '1000'], {
    encoding: 'utf8',
    env: { ...process.env, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000', HYPROF_DIR: raw, HYPROF_RAW_DIR: raw, HYPROF_RESOLVE: '0', HYPROF_THROTTLE: '0', ...c.env },
  });
  if (r.status !== 0) throw new Error(`callgrind ${c.name}: ${r.stderr}`);
  const take = callgrindInclusive(out, 'hp_sample_take');
  const handler = callgrindInclusive(out, 'hp_sample_handler');
  const record = callgrindInclusive(out, 'hp_trace_sample');
  perSample[c.name] = handler.ir / take.calls;
  const traced = c.env.HYPROF_TRACE === '1';
  const untracedName = configs.find((u) => !u.env.HYPROF_TRACE && u.env.HYPROF_UNWIND_DEPTH === c.env.HYPROF_UNWIND_DEPTH)!.name;
  const over = traced ? `+${fmt(perSample[c.name] - perSample[untracedName], 0)}` : '';
  rows.push(
    `| ${c.name} | ${take.calls} | ${fmt(perSample[c.name], 0)} | ${over} | ${traced && record.calls ? fmt(record.ir / record.calls, 0) : '–'} |`,
  );
}

// ---- 2. bytes per sample ----
const exe = compileC('trace_samples', [join(repoRoot, 'test', 'native', 'trace_samples.c')], { cflags: ['-O1', '-g'], outDir: work });
const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(join(p, f)), 0) : statSync(p).size);
function traced(sampling: boolean): { trace: number; otf2: number; samples: number } {
  const raw = join(work, `raw-${sampling}`);
  const out = join(work, `out-${sampling}`);
  const env = { ...process.env, HYPROF_TRACE: '1', HYPROF_SAMPLING: sampling ? '1' : '0', HYPROF_PERIOD_US: '1000', HYPROF_DIR: raw, HYPROF_RAW_DIR: raw, HYPROF_RESOLVE: '0' };
  const r = spawnSync(exe, [String(Math.round(phaseMs * 0.4)), String(Math.round(phaseMs * 0.6))], { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`trace_samples: ${r.stderr}`);
  const traceFile = readdirSync(raw).find((f) => f.endsWith('.trace'))!;
  const trace = statSync(join(raw, traceFile)).size;
  const res = spawnSync(process.execPath, [cliPath, 'resolve', raw, '-o', out], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`resolve: ${res.stderr}`);
  const otf2 = du(join(out, 'traces')) + du(join(out, 'traces.def')) + du(join(out, 'traces.otf2'));
  const printed = spawnSync('otf2-print', [join(out, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  return { trace, otf2, samples: (printed.match(/^CALLING_CONTEXT_SAMPLE /gm) ?? []).length };
}
const sampled = traced(true);
const plain = traced(false);
rmSync(work, { recursive: true, force: true });

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(`\n1. The sampling handler per sample, instructions (callgrind; ${iters} iterations 30 calls below the timer's frame, 1 kHz):`);
console.log('| configuration | samples | handler, per sample | tracing adds | the trace record (hp_trace_sample) |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(`\n2. Bytes per sample on disk (test/native/trace_samples.c, a ${phaseMs} ms phase at 1 kHz, sampled against unsampled):`);
console.log('| form | sampled run | unsampled run | samples | bytes per sample |');
console.log('|---|---|---|---|---|');
console.log(`| trace file (runtime) | ${sampled.trace} | ${plain.trace} | ${sampled.samples} | ${fmt((sampled.trace - plain.trace) / sampled.samples, 1)} |`);
console.log(`| OTF2 archive (resolve) | ${sampled.otf2} | ${plain.otf2} | ${sampled.samples} | ${fmt((sampled.otf2 - plain.otf2) / sampled.samples, 1)} |`);
