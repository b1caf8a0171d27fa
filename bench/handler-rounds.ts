/**
 * The part bench/sampling and bench/fold share: bench/sampling-handler.c built with the runtime
 * compiled in (-DHYPROF_BENCH_HANDLER times the handler on every signal), run per configuration in
 * interleaved rounds, and the table of CPU, wall, signals and the handler's own time per signal.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, repoRoot, runtimeSources } from '../test/helpers/native.js';
import { Samples, fmt, interleave } from './lib.js';

export interface HandlerConfig {
  name: string;
  /** base: the workload alone; noop: a no-op handler on the same timer; hyprof: the runtime's handler */
  mode: 'base' | 'noop' | 'hyprof';
  env: Record<string, string>;
}

/** bench/sampling-handler.c with the runtime compiled in, frame pointers everywhere. */
export function buildHandlerBench(outDir: string): string {
  const papi = existsSync('/usr/include/papi.h');
  return compileC('sampling-handler', [...runtimeSources(), join(repoRoot, 'bench', 'sampling-handler.c')], {
    link: false,
    outDir,
    cflags: ['-std=gnu11', '-O2', '-g', '-fno-omit-frame-pointer', '-DHYPROF_BENCH_HANDLER', `-I${join(repoRoot, 'native')}`, ...(papi ? ['-DHYPROF_HAVE_PAPI=1'] : [])],
    ldflags: ['-lunwind', '-lunwind-x86_64', '-ldl', '-lrt', ...(papi ? ['-lpapi'] : [])],
  });
}

/** Each configuration once per round, interleaved: the program prints `mode cpu wall signals median p90`. */
export function runHandlerRounds(exe: string, configs: HandlerConfig[], rounds: number, args: [string, string], env: Record<string, string>): Samples {
  const samples = new Samples();
  interleave(configs, rounds, (c) => {
    const r = spawnSync(exe, [c.mode, ...args], { encoding: 'utf8', env: { ...process.env, ...env, ...c.env } });
    if (r.status !== 0) throw new Error(`${c.name} failed: ${r.stderr}`);
    const [, cpu, wall, signals, median, p90] = r.stdout.trim().split(' ');
    samples.add(`${c.name}|cpu`, Number(cpu));
    samples.add(`${c.name}|wall`, Number(wall));
    samples.add(`${c.name}|signals`, Number(signals));
    samples.add(`${c.name}|median`, Number(median));
    samples.add(`${c.name}|p90`, Number(p90));
  });
  return samples;
}

/** The table: per signal = (CPU min - the workload alone's CPU min) / signals, for every configuration with a timer. */
export function printHandlerTable(configs: HandlerConfig[], samples: Samples): void {
  console.log('| configuration | CPU min | CPU median | wall min | wall median | signals | handler median | handler p90 | per signal (CPU) |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const baseCpu = samples.get('workload alone|cpu').min;
  for (const c of configs) {
    const cpu = samples.get(`${c.name}|cpu`);
    const wall = samples.get(`${c.name}|wall`);
    const signals = samples.get(`${c.name}|signals`).median;
    const handler = c.mode === 'hyprof';
    const us = (ns: number) => fmt(ns / 1000, 2);
    const perSignal = c.mode === 'base' || !signals ? '–' : `${fmt(((cpu.min - baseCpu) * 1e6) / signals, 1)} µs`;
    console.log(
      `| ${c.name} | ${fmt(cpu.min, 3)} | ${fmt(cpu.median, 3)} | ${fmt(wall.min, 3)} | ${fmt(wall.median, 3)} | ${Math.round(signals)} | ` +
        `${handler ? us(samples.get(`${c.name}|median`).median) : '–'} | ${handler ? us(samples.get(`${c.name}|p90`).median) : '–'} | ${perSignal} |`,
    );
  }
}
