/**
 * The runtime's clock (native/core/clock.c): whichever clock is in force (the TSC, calibrated against
 * CLOCK_MONOTONIC, or CLOCK_MONOTONIC itself), the profile's times agree with CLOCK_MONOTONIC on
 * known sleeps, spins, spins moving between CPUs and a forked child's sleeps; the clock in force is
 * in the metadata; HYPROF_CLOCK is checked. Agreement, not speed: nothing here is timed against a
 * budget.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import type { RawProcess } from '../src/samples/raw-model.js';
import { compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { readWithTau } from './helpers/tau-reader.js';

const exe = compileC('core_clock', ['core_clock.c'], { cflags: ['-O2', '-g'] });

/** What HYPROF_CLOCK=auto should choose here: the TSC when invariant and the kernel's clocksource. */
function tscInvariant(): boolean {
  if (arch() !== 'x64') return false;
  const flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1].split(/\s+/) ?? [];
  return flags.includes('constant_tsc') && flags.includes('nonstop_tsc');
}
function kernelClocksource(): string {
  const p = '/sys/devices/system/clocksource/clocksource0/current_clocksource';
  return existsSync(p) ? readFileSync(p, 'utf8').trim() : 'unknown';
}

async function measure(env: Record<string, string>) {
  const dir = tmpDir('clock');
  const result = await run(exe, ['7', '30'], { env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', ...env } });
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.raw'))
    .map((f) => join(dir, f));
  const brackets = new Map<string, number>();
  for (const line of result.stdout.trim().split('\n')) {
    const m = /^(.*) (\d+)$/.exec(line);
    if (m) brackets.set(m[1], Number(m[2]));
  }
  return { result, dir, files, processes: files.map(readRawFile), brackets };
}

function attribute(p: RawProcess, key: string): string | undefined {
  return p.info.attributes.find(([k]) => k === key)?.[1];
}

/** Inclusive ns of the event `name` on the process's threads (one call each). */
function inclusive(p: RawProcess, name: string): number | undefined {
  const ev = p.events.find((e) => e.name === name);
  if (!ev) return undefined;
  for (const th of p.threads) {
    for (const s of th.stats) if (p.contexts.get(s.context)?.event === ev.id && s.calls === 1) return s.incl[0];
  }
  return undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const clock of ['auto', 'tsc', 'monotonic'] as const) {
  test.serial(`HYPROF_CLOCK=${clock}: the profile's times agree with CLOCK_MONOTONIC`, async (t) => {
    const { result, processes, brackets } = await measure({ HYPROF_CLOCK: clock });
    t.is(result.code, 0, result.stderr);
    t.is(processes.length, 2, 'the process and its forked child');
    const expected =
      clock === 'monotonic' ? 'monotonic' : tscInvariant() && (clock === 'tsc' || kernelClocksource() === 'tsc') ? 'tsc' : 'monotonic';
    for (const p of processes) {
      t.is(attribute(p, 'HYPROF_CLOCK'), expected);
      t.regex(attribute(p, 'hyprof Clock') ?? '', expected === 'tsc' ? /^TSC, invariant, [\d.]+ MHz/ : /^CLOCK_MONOTONIC \(/);
    }
    if (clock === 'tsc' && expected === 'monotonic') t.regex(result.stderr, /HYPROF_CLOCK=tsc: .*using CLOCK_MONOTONIC/);

    for (const kind of ['sleep', 'spin', 'migrating spin', 'child sleep']) {
      const diffs: number[] = [];
      for (let i = 0; i < 7; i++) {
        const name = `${kind} ${i}`;
        const bracket = brackets.get(name);
        const p = processes.find((q) => q.events.some((e) => e.name === name));
        const incl = p && inclusive(p, name);
        if (bracket === undefined || incl === undefined) {
          t.fail(`${name}: bracket ${bracket}, profile ${incl}`);
          continue;
        }
        t.true(bracket > 25e6, `${name}: the bracket covers the 30 ms interval (${bracket} ns)`);
        // The probes' interval lies inside the bracket: a clock that runs fast by more than 0.1%
        // (or counts ticks as nanoseconds) fails here on every instance.
        t.true(incl <= bracket * 1.001 + 20e3, `${name}: profile ${incl} ns within the bracket of ${bracket} ns`);
        diffs.push((bracket - incl) / bracket);
      }
      // ... and fills it, but for the two probe calls: a clock slow by more than 0.1% fails here.
      // The median allows for a preemption between a bracket's read and its probe.
      t.true(median(diffs) < 0.001, `${kind}: median shortfall ${median(diffs)}`);
    }
  });
}

test.serial('HYPROF_CLOCK with an unknown value: one warning naming it, then the default', async (t) => {
  const { result, processes } = await measure({ HYPROF_CLOCK: 'rdtsc' });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stderr, /hyprof: HYPROF_CLOCK=rdtsc is not one of auto, tsc, monotonic; using auto/);
  t.true(['tsc', 'monotonic'].includes(attribute(processes[0], 'HYPROF_CLOCK') ?? ''));
});

test.serial('the clock in force reaches the TAU profile metadata', async (t) => {
  const { result, files } = await measure({});
  t.is(result.code, 0, result.stderr);
  const out = tmpDir('clock-profile');
  const parent = files.find((f) => readRawFile(f).events.some((e) => e.name === 'sleep 0'))!;
  const r = await hyprof(['resolve', parent, '-o', out]);
  t.is(r.code, 0, r.stderr);
  const tau = readWithTau(out);
  t.true(tau.ok, tau.diagnostics.join('\n'));
  const meta = { ...tau.trial_metadata, ...tau.threads[0].metadata };
  t.regex(meta['hyprof Clock'] ?? '', /^(TSC, invariant|CLOCK_MONOTONIC)/);
  t.true(['tsc', 'monotonic'].includes(meta.HYPROF_CLOCK));
});
