/**
 * How `hyprof run` has V8 name its JIT code (docs/node.md, "JavaScript frames in samples"): the V8
 * part (native/addon/v8, built from source for the Node ABI of the node that built hyprof) loaded by a
 * `--require` preload, which logs V8's JIT code events in memory with their line tables; or, when that
 * part is not there or HYPROF_V8_JIT=0, V8's perf map (`--perf-basic-prof`, names and start lines
 * only). `--interpreted-frames-native-stack` either way: interpreted functions get a code range each.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../base/errors.js';
import { installedPrefix, packageRoot } from '../base/package-root.js';

export interface NodeJitPlan {
  /** Flags for NODE_OPTIONS. */
  flags: string[];
  /** Why the perf map is used (said when HYPROF_VERBOSE is on), or null. */
  note: string | null;
}

export const v8PartPath = join(packageRoot, 'build', 'Release', 'hyprof_v8.node');
export const v8PreloadPath = join(packageRoot, 'dist', 'src', 'events', 'v8-jit-preload.cjs');

/** The preload that marks Node's JavaScript threads (src/events/thread-preload.cts), or null where
 * there is none: the single executable has no addon to load (docs/node.md, "Threads"). */
export function threadPreload(): string | null {
  if (installedPrefix) return null;
  const file = join(packageRoot, 'dist', 'src', 'events', 'thread-preload.cjs');
  return existsSync(file) ? file : null;
}

const PERF_MAP = ['--perf-basic-prof', '--interpreted-frames-native-stack'];

/** HYPROF_V8_JIT as a boolean (default on); a UserError naming the value otherwise. */
export function v8JitWanted(env: NodeJS.ProcessEnv): boolean {
  const v = env.HYPROF_V8_JIT;
  if (v === undefined || v === '') return true;
  if (/^(1|on|true|yes|enable|enabled)$/i.test(v)) return true;
  if (/^(0|off|false|no|disable|disabled)$/i.test(v)) return false;
  throw new UserError(`HYPROF_V8_JIT=${v} is not a boolean (1/0, on/off, true/false, yes/no)`);
}

/** A path as one word of NODE_OPTIONS (node reads double quotes and backslash escapes there). */
export function optionWord(path: string): string {
  return /[\s"\\]/.test(path) ? `"${path.replace(/[\\"]/g, (c) => `\\${c}`)}"` : path;
}

export function nodeJitPlan(env: NodeJS.ProcessEnv, part = v8PartPath, preload = v8PreloadPath): NodeJitPlan {
  if (!v8JitWanted(env)) {
    return { flags: PERF_MAP, note: "HYPROF_V8_JIT=0: JavaScript frames are named from V8's perf map, with the line where each function starts" };
  }
  if (installedPrefix || !existsSync(part) || !existsSync(preload)) {
    return {
      flags: PERF_MAP,
      note: `V8's JIT code events are not used (${installedPrefix || !existsSync(part) ? `${part} is not built` : `${preload} is missing`}; docs/install.md): JavaScript frames are named from V8's perf map, with the line where each function starts`,
    };
  }
  return { flags: ['--require', optionWord(preload), '--interpreted-frames-native-stack'], note: null };
}

/** NODE_OPTIONS with the plan's flags added (those already there are not repeated). */
export function withNodeJitFlags(nodeOptions: string | undefined, plan: NodeJitPlan): string | undefined {
  const have = nodeOptions ?? '';
  const words = have.split(/\s+/);
  const add: string[] = [];
  for (let i = 0; i < plan.flags.length; i++) {
    const f = plan.flags[i];
    if (f === '--require') {
      const path = plan.flags[++i];
      if (!have.includes(path)) add.push(f, path);
    } else if (!words.includes(f)) add.push(f);
  }
  return add.length ? [nodeOptions, ...add].filter(Boolean).join(' ') : nodeOptions;
}
