/**
 * `hyprof resolve` of many contexts in bounded memory. A real program (test/native/many_events.c)
 * enters 50,000 dynamic phases "Iteration <i>" with a timer inside each (100,000 contexts); the
 * resolve then runs with V8's heap cut to HEAP_MB. Holding the raw contexts in Maps keyed by bigint,
 * an object per statistic and per context's values, and a name string per event path needed between
 * 64 and 96 MB of heap here (it failed at 64); the column layout needs between 20 and 24 MB. The flag
 * bounds every isolate of the process, so the second resolve, in a worker thread, is bounded too.
 * The 10^6-phase figures are in bench/many-events.ts and bench/RESULTS.md.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, run, tmpDir } from './helpers/native.js';

const N = 50_000;
/** Well below what the layout before columns needed, comfortably above what it needs now. */
const HEAP_MB = 48;

let raw = '';
test.before(async () => {
  const exe = compileC('many_events', ['many_events.c'], { cflags: ['-O2', '-g'] });
  raw = join(tmpDir('membound'), 'raw');
  mkdirSync(raw);
  const env = { HYPROF_RAW_DIR: raw, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0' };
  const r = await run(exe, [String(N), 'phases'], { env, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`many_events failed (${r.code}):\n${r.stderr}`);
  if (readdirSync(raw).length !== 1) throw new Error(`expected one raw file in ${raw}: ${readdirSync(raw).join(', ')}`);
});

const bounded = ['--max-old-space-size=' + HEAP_MB, cliPath, 'resolve'];
const failure = (r: { status: number | null; signal: string | null; stderr: string }) => `resolve failed (${r.status}, ${r.signal}):\n${r.stderr.slice(-2000)}`;

test.serial(`resolve of ${2 * N} contexts fits a ${HEAP_MB} MB heap, in the main thread and in a worker`, async (t) => {
  const out = join(tmpDir('membound-prof'), 'prof');
  // This profile is checked for conformance by run() (the CLI is among the arguments).
  const r = await run(process.execPath, [...bounded, raw, '-o', out], { env: { HYPROF_RESOLVE_WORKERS: '0' }, timeoutMs: 120_000 });
  t.is(r.code, 0, failure({ status: r.code, signal: r.signal, stderr: r.stderr }));
  const text = readFileSync(join(out, 'profile.0.0.0'), 'utf8');
  // A flat entry per phase, and an event path per phase and per timer inside it.
  t.true(Number(/^(\d+) templated_functions/.exec(text)?.[1]) >= 3 * N);
  for (const name of ['Iteration 0', `.TAU application => main => Iteration ${N - 1}`, `.TAU application => main => Iteration ${N - 1} => work`]) {
    t.true(text.includes(`\n"${name}" 1 `), `${name} missing`);
  }

  // The same file assembled in a worker thread, under the same bound: the same profile, byte for
  // byte (so the conformance check above covers it).
  const inWorker = join(tmpDir('membound-worker'), 'prof');
  const w = spawnSync(process.execPath, [...bounded, raw, '-o', inWorker], {
    env: { ...process.env, HYPROF_RESOLVE_WORKERS: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  t.is(w.status, 0, failure(w));
  t.true(readFileSync(join(inWorker, 'profile.0.0.0'), 'utf8') === text, 'the worker wrote another profile');
});

test.serial('a resolve worker that runs out of heap is said as such, with what to change, not as a bug', (t) => {
  // 16 MB is below what the column layout needs for these contexts (it needs 20 to 24 MB)
  const out = join(tmpDir('membound-oom'), 'prof');
  const w = spawnSync(process.execPath, ['--max-old-space-size=16', cliPath, 'resolve', raw, '-o', out], {
    env: { ...process.env, HYPROF_RESOLVE_WORKERS: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  t.is(w.status, 1, failure(w));
  t.regex(w.stderr, /a resolve worker ran out of memory \(its JavaScript heap reached its limit\): resolve with fewer workers/);
  t.notRegex(w.stderr, /bug in hyprof|\n\s+at /);
});
