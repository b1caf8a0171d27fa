/**
 * bench/probe-cost: nanoseconds per start/stop pair (by handle, by a literal name, by a name made at
 * run time, TAU_START/TAU_STOP; event paths on, the profile collected and written at exit) next to
 * the same loop uninstrumented and to the clock floors (two clock_gettime(CLOCK_MONOTONIC), two
 * rdtsc), on 1 and 2 threads, from bench/probe-cost.c built with 64-byte function and loop
 * alignment. The one binary runs under three runtimes, interleaved round by round: the default clock
 * (the TSC where it is invariant), HYPROF_CLOCK=monotonic, and the runtime inert (HYPROF_DISABLE=1:
 * the same calls, returning at once). Each figure: min and median over the rounds, CPU time of
 * each thread (CLOCK_THREAD_CPUTIME_ID) and its wall time.
 * Run: node dist/bench/probe-cost.js [pairs] [rounds]   (default 2,000,000 pairs, 7 rounds)
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import { compileC, repoRoot, tmpDir } from '../test/helpers/native.js';
import { Samples, alignFlags, conditions, fmt, interleave, measureCommand } from './lib.js';

const pairs = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 7);
if (!(pairs > 0) || !(rounds > 0)) {
  console.error('usage: node dist/bench/probe-cost.js [pairs > 0] [rounds > 0]');
  process.exit(2);
}
const exe = compileC('probe-cost', [join(repoRoot, 'bench', 'probe-cost.c')], { cflags: ['-O2', '-g', ...alignFlags] });

const modes = [
  { name: 'default clock', env: {} },
  { name: 'HYPROF_CLOCK=monotonic', env: { HYPROF_CLOCK: 'monotonic' } },
  { name: 'runtime inert (HYPROF_DISABLE=1)', env: { HYPROF_DISABLE: '1' } },
  // Two metrics: every start and stop also reads the thread's CPU clock (a system call).
  { name: 'HYPROF_METRICS=TIME:CPU_TIME', env: { HYPROF_METRICS: 'TIME:CPU_TIME' } },
];
const before = conditions();
const samples = new Samples();
const rawDirs = new Map(modes.map((m) => [m.name, tmpDir('bench-probe-raw')]));
interleave(modes, rounds, (mode, round) => {
  const env = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0', HYPROF_RAW_DIR: rawDirs.get(mode.name), ...mode.env };
  const { stdout } = measureCommand(exe, [String(pairs), String(round)], env, `probe-cost (${mode.name})`);
  for (const line of stdout.trim().split('\n')) {
    const [name, threads, cpu, wall] = line.split(' ');
    samples.add(`${mode.name}|${name}|${threads}|cpu`, Number(cpu));
    samples.add(`${mode.name}|${name}|${threads}|wall`, Number(wall));
  }
});
// The clock the default chose on this machine, as the runtime recorded it in its metadata.
const raw = readdirSync(rawDirs.get('default clock')!).find((f) => f.endsWith('.raw'));
const clockInForce = raw
  ? (readRawFile(join(rawDirs.get('default clock')!, raw)).info.attributes.find(([k]) => k === 'HYPROF_CLOCK')?.[1] ?? '?')
  : '?';
for (const d of rawDirs.values()) rmSync(d, { recursive: true, force: true });

const rows: Array<[string, string, string]> = [
  ['empty loop (uninstrumented)', 'default clock', 'empty_loop'],
  ['two clock_gettime(CLOCK_MONOTONIC): floor', 'default clock', 'clock_gettime_x2'],
  ['two rdtsc: floor', 'default clock', 'rdtsc_x2'],
  [`by handle, default clock (${clockInForce})`, 'default clock', 'by_handle'],
  [`by literal name, default clock`, 'default clock', 'by_name_literal'],
  [`TAU_START/TAU_STOP, default clock`, 'default clock', 'TAU_START'],
  [`by run-time name, default clock`, 'default clock', 'by_name_dynamic'],
  ['by handle, HYPROF_CLOCK=monotonic', 'HYPROF_CLOCK=monotonic', 'by_handle'],
  ['by literal name, HYPROF_CLOCK=monotonic', 'HYPROF_CLOCK=monotonic', 'by_name_literal'],
  ['by run-time name, HYPROF_CLOCK=monotonic', 'HYPROF_CLOCK=monotonic', 'by_name_dynamic'],
  ['by handle, HYPROF_METRICS=TIME:CPU_TIME', 'HYPROF_METRICS=TIME:CPU_TIME', 'by_handle'],
  ['by handle, runtime inert', 'runtime inert (HYPROF_DISABLE=1)', 'by_handle'],
  ['by literal name, runtime inert', 'runtime inert (HYPROF_DISABLE=1)', 'by_name_literal'],
];

console.log(`machine: ${before}`);
console.log(`after: ${conditions()}`);
console.log(
  `${pairs} pairs per case and thread, ${rounds} rounds; ns per pair per thread. CPU = the thread's own CPU time, ` +
    'wall = its elapsed time; "pair" = CPU min minus the empty loop\'s CPU min.',
);
for (const threads of [1, 2]) {
  console.log(`\n${threads} thread${threads > 1 ? 's' : ''}${threads > 1 ? ', each running the loop at once' : ''}:\n`);
  console.log('| loop | CPU min | CPU median | wall min | wall median | pair (CPU) |');
  console.log('|---|---|---|---|---|---|');
  const empty = samples.get(`default clock|empty_loop|${threads}|cpu`).min;
  for (const [label, mode, name] of rows) {
    const key = `${mode}|${name}|${threads}`;
    if (!samples.has(`${key}|cpu`)) continue; // rdtsc on other architectures
    const cpu = samples.get(`${key}|cpu`);
    const wall = samples.get(`${key}|wall`);
    const pair = name === 'empty_loop' ? '–' : fmt(cpu.min - empty, 1);
    console.log(`| ${label} | ${fmt(cpu.min)} | ${fmt(cpu.median)} | ${fmt(wall.min)} | ${fmt(wall.median)} | ${pair} |`);
  }
}
