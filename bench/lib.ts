/**
 * What every benchmark here shares, so that each measures the same way:
 *  - configurations interleaved: round r runs every configuration once, in an order rotated by r,
 *    so drift of the machine (other load, frequency) hits all of them alike;
 *  - CPU time beside wall time: a process's user + system seconds (wait4's rusage, bench/cputime.c)
 *    or a thread's own CPU clock; on a shared machine CPU time moves far less than wall time;
 *  - min and median over the rounds;
 *  - the conditions the figures were taken under (machine, load average before and after).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { join } from 'node:path';
import { compileC, repoRoot, tmpDir } from '../test/helpers/native.js';

export interface Summary {
  min: number;
  median: number;
  n: number;
}

export function summary(xs: number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2, n: s.length };
}

/** Calls run(config, round) for every round and every configuration, the order rotated per round. */
export function interleave<C>(configs: C[], rounds: number, run: (config: C, round: number) => void): void {
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < configs.length; i++) run(configs[(i + r) % configs.length], r);
  }
}

/** Collects named series of numbers. */
export class Samples {
  private readonly series = new Map<string, number[]>();
  add(key: string, value: number): void {
    const xs = this.series.get(key) ?? [];
    xs.push(value);
    this.series.set(key, xs);
  }
  has(key: string): boolean {
    return this.series.has(key);
  }
  get(key: string): Summary {
    const xs = this.series.get(key);
    if (!xs?.length) throw new Error(`no measurements of ${key}`);
    return summary(xs);
  }
}

const dir = tmpDir('bench');
let cputimeExe: string | undefined;

export interface Cost {
  wall: number;
  cpu: number;
  stdout: string;
}

/** Runs a command to its end; its wall seconds and its CPU seconds (user + system, children it waited for included). */
export function measureCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv, what: string): Cost {
  cputimeExe ??= compileC('cputime', [join(repoRoot, 'bench', 'cputime.c')], { cflags: ['-O2'], link: false, outDir: dir });
  const out = join(dir, 'cputime.out');
  const r = spawnSync(cputimeExe, [out, cmd, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}): ${r.stderr}`);
  const [wall, cpu] = readFileSync(out, 'utf8').trim().split(' ').map(Number);
  return { wall, cpu, stdout: r.stdout };
}

/** A line describing the machine and its load now, for the record of each run. */
export function conditions(): string {
  const model = cpus()[0]?.model ?? 'unknown CPU';
  let source = 'unknown';
  try {
    source = readFileSync('/sys/devices/system/clocksource/clocksource0/current_clocksource', 'utf8').trim();
  } catch {
    // not Linux, or /sys not mounted
  }
  return `${cpus().length} x ${model}, Linux ${release()}, clocksource ${source}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`;
}

/** The same source built for every configuration that needs it: functions and loops on 64-byte
 * boundaries, so that where the linker put a loop cannot pass for the cost of a probe. */
export const alignFlags = ['-falign-functions=64', '-falign-loops=64'];

/** Format seconds or nanoseconds with a fixed number of decimals. */
export const fmt = (x: number, digits = 2) => x.toFixed(digits);
export const pct = (x: number, base: number) => `${x >= base ? '+' : ''}${(((x - base) / base) * 100).toFixed(1)}%`;

/** Inclusive instructions of `fn` and the calls made to it, from a callgrind output file. */
export function callgrindInclusive(out: string, fn: string): { ir: number; calls: number } {
  const ann = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', out], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const line = ann.split('\n').find((l) => new RegExp(`:${fn} \\[`).test(l));
  const ir = line ? Number(line.trim().split(' ')[0].replace(/,/g, '')) : 0;
  const text = readFileSync(out, 'utf8');
  const ids = new Set([...text.matchAll(new RegExp(`c?fn=\\((\\d+)\\) ${fn}\\n`, 'g'))].map((m) => m[1]));
  let calls = 0;
  for (const m of text.matchAll(/cfn=\((\d+)\)[^\n]*\ncalls=(\d+)/g)) if (ids.has(m[1])) calls += Number(m[2]);
  return { ir, calls };
}
