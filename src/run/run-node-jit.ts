/**
 * How `hyprof run` has V8 name its JIT code (docs/node.md, "JavaScript frames in samples"): the V8
 * part (native/addon/v8, built from source for the Node ABI of the node that built hyprof) loaded by a
 * `--require` preload, which logs V8's JIT code events in memory with their line tables; or, when that
 * part is not there or HYPROF_V8_JIT=0, V8's perf map (`--perf-basic-prof`, names and start lines
 * only). `--interpreted-frames-native-stack` either way: interpreted functions get a code range each.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
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

/** A boolean setting's "on" (HYPROF_V8_JIT, HYPROF_SAMPLING), as the runtime reads it. */
const YES = /^(1|on|true|yes|enable|enabled)$/i;

/** HYPROF_V8_JIT as a boolean (default on); a UserError naming the value otherwise. */
export function v8JitWanted(env: NodeJS.ProcessEnv): boolean {
  const v = env.HYPROF_V8_JIT;
  if (v === undefined || v === '') return true;
  if (YES.test(v)) return true;
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

/**
 * V8's own code log, which says which function (of which file) each position of optimised code was
 * inlined from (src/symbolize/v8-log.ts): node's flags `--log-code --no-log-source-code
 * --logfile=<raw dir>/v8.log`,
 * placed before the program's own arguments when `hyprof run` starts node itself with the V8 part
 * (node refuses these flags in NODE_OPTIONS, so a node started through a script or npx, or by the
 * program, goes without). None when the user asked V8 for a log of their own (`--prof`, `--log...`).
 * The preload takes the flags out of `process.execArgv` again (it knows them by the raw directory),
 * so the program and the node processes it starts see the arguments they were given, and stops V8
 * from opening a log for each worker thread: the main thread's code alone is logged.
 */
export function v8LogArgs(program: string, args: string[], rawDir: string, plan: NodeJitPlan): string[] {
  if (plan.note !== null || !/^(node|nodejs)$/.test(basename(program))) return [];
  // V8 writes its log to stdout when it cannot open the file: only into a directory that is there.
  if (!writableDir(rawDir)) return [];
  // node's own options come before the script; what follows it is the program's (`--log-level`)
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--' || !a.startsWith('-')) break;
    if (/^--(no-)?(log|prof)/.test(a.replace(/_/g, '-'))) return [];
    if (SEPARATE_VALUE.has(a)) i++;
  }
  // the scripts' texts are left out: megabytes, and a cost the program would pay (v8-log.ts)
  return ['--log-code', '--no-log-source-code', `--logfile=${join(rawDir, 'v8.log')}`];
}

/** The arguments node is started with, in the measured environment `env`: v8LogArgs's flags first when sampling. */
export function withV8Log(program: string, args: string[], rawDir: string, plan: NodeJitPlan, env: NodeJS.ProcessEnv): string[] {
  const sampled = YES.test(env.HYPROF_SAMPLING ?? env.TAU_SAMPLING ?? '');
  return [...(sampled ? v8LogArgs(program, args, rawDir, plan) : []), ...args];
}

/** node's options whose value may be the next argument (`--require ./x.js`), not a script. */
const SEPARATE_VALUE = new Set([
  '-r', '--require', '--import', '--loader', '--experimental-loader', '-e', '--eval', '-p', '--print', '--input-type',
  '-C', '--conditions', '--inspect-port', '--debug-port', '--title', '--env-file', '--redirect-warnings', '--diagnostic-dir',
  '--report-dir', '--report-directory', '--report-filename', '--report-signal', '--cpu-prof-dir', '--cpu-prof-name',
  '--cpu-prof-interval', '--heap-prof-dir', '--heap-prof-name', '--heap-prof-interval', '--icu-data-dir', '--openssl-config',
  '--secure-heap', '--secure-heap-min', '--tls-cipher-list', '--tls-keylog', '--unhandled-rejections', '--use-largepages',
  '--dns-result-order', '--disable-proto', '--experimental-policy', '--policy-integrity', '--stack-size', '--max-http-header-size',
]);

function writableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
