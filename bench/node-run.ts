/**
 * A Node program started as `hyprof run -- node ...` starts it (the runtime preloaded, the V8 part,
 * V8's code log: src/run/run-measured.ts, src/run/run-node-jit.ts), for the Node benchmarks that run
 * it without hyprof's command around it, so that only the program's own process is measured; and
 * the raw file it leaves.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { requireRuntime } from '../src/base/package-root.js';
import { childEnv } from '../src/run/run-measured.js';
import { nodeJitPlan, withV8Log, type NodeJitPlan } from '../src/run/run-node-jit.js';

export interface NodeRun {
  env: NodeJS.ProcessEnv;
  /** node's arguments: V8's code log flags first (unless left out), then `nodeArgs`. */
  args: string[];
}

/**
 * The environment and arguments of `node nodeArgs` measured into `rawDir`. `plan`: the V8 part's
 * flags (default: what `hyprof run` chooses); `v8Log: false` leaves V8's code log out.
 */
export function asHyprofRun(base: NodeJS.ProcessEnv, rawDir: string, nodeArgs: string[], opts: { sampling?: boolean; plan?: NodeJitPlan; v8Log?: boolean } = {}): NodeRun {
  const env = childEnv(base, requireRuntime(), rawDir, { sampling: opts.sampling ?? true }, opts.plan);
  // childEnv marks its own child as the run's root; here that child is the bench's rusage wrapper
  // (bench/cputime.c, preloaded too) or node itself, never a `hyprof run`: no root is marked
  delete env.HYPROF_RUN_PARENT;
  const args = opts.v8Log === false ? nodeArgs : withV8Log(process.execPath, nodeArgs, rawDir, nodeJitPlan(base), env);
  return { env, args };
}

/** The program's raw file in `rawDir`: the largest (the rusage wrapper writes a small one of its own). */
export function largestRaw(rawDir: string): string {
  const files = readdirSync(rawDir)
    .filter((f) => f.endsWith('.raw'))
    .map((f) => join(rawDir, f));
  if (files.length === 0) throw new Error(`${rawDir}: no raw file`);
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
}
