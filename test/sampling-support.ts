/**
 * Support for the sampling tests: run a real program with sampling on, read the raw files it left
 * (src/samples/raw-reader.ts), and name sampled addresses with llvm-symbolizer (one batch per module)
 * so tests can check callpaths by function name.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import type { RawProcess, RawSample, RawThread } from '../src/samples/raw-model.js';
import { run, tmpDir, type RunResult } from './helpers/native.js';

export interface SampledRun {
  result: RunResult;
  dir: string;
  raws: RawProcess[];
}

/** Run `exe` with sampling on (plus `env`), no resolve at exit; read every raw file written. */
export async function runSampled(
  exe: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<SampledRun> {
  const dir = tmpDir('sampling');
  const result = await run(exe, args, {
    env: { HYPROF_SAMPLING: '1', HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', ...env },
  });
  const raws = readdirSync(dir)
    .filter((f) => f.endsWith('.raw'))
    .sort()
    .map((f) => readRawFile(join(dir, f)));
  return { result, dir, raws };
}

/** Full name path of a context, root first: ['.TAU application', 'R1', ...]. */
export function contextPath(p: RawProcess, context: bigint): string[] {
  const names: string[] = [];
  for (let c = context; c !== 0n; ) {
    const ctx = p.contexts.get(c);
    if (!ctx) throw new Error(`context ${c} not in the table`);
    names.unshift(p.events[ctx.event]!.name);
    c = ctx.parent;
  }
  return names;
}

/** Innermost timer name of a context. */
export function contextName(p: RawProcess, context: bigint): string {
  const path = contextPath(p, context);
  return path[path.length - 1]!;
}

/**
 * Function names of every sampled PC of the process: Map<pc, name> (return addresses looked up at
 * pc - 1, the call instruction). Addresses outside the map are named '?'.
 */
export function symbolize(p: RawProcess): (pc: bigint, isReturn: boolean) => string {
  const wanted = new Map<string, Set<bigint>>(); // module path -> module offsets
  const where = (pc: bigint) => p.maps.find((m) => pc >= m.start && pc < m.end);
  for (const t of p.threads)
    for (const s of t.samples)
      s.pcs.forEach((pc, i) => {
        const addr = i === 0 ? pc : pc - 1n;
        const m = where(addr);
        if (!m || m.path === '[vdso]') return;
        if (!wanted.has(m.path)) wanted.set(m.path, new Set());
        wanted.get(m.path)!.add(addr - m.bias);
      });
  const names = new Map<string, string>(); // `${path}:${offset}` -> function
  for (const [path, offs] of wanted) {
    const list = [...offs];
    for (let i = 0; i < list.length; i += 2000) {
      const chunk = list.slice(i, i + 2000);
      const r = spawnSync(
        'llvm-symbolizer',
        [`--obj=${path}`, '--no-inlines', '--functions=linkage', ...chunk.map((o) => '0x' + o.toString(16))],
        { encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      const blocks = r.stdout.trim().split(/\n\n/);
      chunk.forEach((o, k) => names.set(`${path}:${o}`, (blocks[k] ?? '?').split('\n')[0]!));
    }
  }
  return (pc: bigint, isReturn: boolean) => {
    const addr = isReturn ? pc - 1n : pc;
    const m = where(addr);
    if (!m) return '?';
    if (m.path === '[vdso]') return '[vdso]';
    return names.get(`${m.path}:${addr - m.bias}`) ?? '?';
  };
}

/** The callpath of a sample as function names, innermost first. */
export function frames(name: (pc: bigint, r: boolean) => string, s: RawSample): string[] {
  return s.pcs.map((pc, i) => name(pc, i > 0));
}

export function totalSamples(t: RawThread): number {
  return t.samples.reduce((n, s) => n + s.count, 0);
}

export function attr(p: RawProcess, key: string): string | undefined {
  return p.info.attributes.find(([k]) => k === key)?.[1];
}

export function drop(t: RawThread, reason: string): number {
  return t.drops.find(([r]) => r === reason)?.[1] ?? 0;
}
