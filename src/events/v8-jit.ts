/**
 * A program that imports hyprof (without `hyprof run`) gets its JavaScript frames named too: once the
 * addon is loaded, the V8 part (native/addon/v8, docs/node.md) starts logging this thread's JIT code
 * events into the addon's runtime, when sampling is on. Under `hyprof run` the preload started it
 * already (v8-jit-preload.cts); a second start on the same thread does nothing.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const YES = /^(1|on|true|yes|enable|enabled)$/i;
const NO = /^(0|off|false|no|disable|disabled)$/i;

/** Why the V8 part did not start that is no failure: said only with HYPROF_VERBOSE. */
const EXPECTED = /^(sampling is off|HYPROF_V8_JIT is off|.* is not built|measurement is off)/;

/** A load error as one line: node's reason may come after the first line (another ABI's does). */
const oneLine = (message: string): string => message.trim().replace(/\s*\n\s*/g, ' ');

/** Start the V8 part on this thread; returns why it did not start, or null when it runs. */
export function startV8Jit(packageRoot: string, addonFile: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!YES.test(env.HYPROF_SAMPLING ?? env.TAU_SAMPLING ?? '')) return 'sampling is off';
  const wanted = env.HYPROF_V8_JIT ?? '';
  if (NO.test(wanted)) return 'HYPROF_V8_JIT is off';
  // A program cannot be stopped for a bad value here (`hyprof run` refuses it): said, and on as by default.
  if (wanted !== '' && !YES.test(wanted) && isMainThread) {
    process.stderr.write(`hyprof: HYPROF_V8_JIT=${wanted} is not a boolean (1/0, on/off, true/false, yes/no); using 1\n`);
  }
  const part = join(packageRoot, 'build', 'Release', 'hyprof_v8.node');
  if (!existsSync(part)) return `${part} is not built`;
  try {
    const why = (createRequire(import.meta.url)(part) as { start(runtime?: string): string }).start(addonFile ?? undefined);
    // as the preload does (v8-jit-preload.cts): code stays where it was compiled
    if (!why) setFlagsFromString('--no-compact-code-space');
    return why || null;
  } catch (e) {
    return `${part} does not load in this node ${process.version} (${oneLine(String((e as Error).message))})`;
  }
}

/**
 * Say why the V8 part did not start (startV8Jit's answer): a failure always, once, by the main
 * thread; an expected reason only with HYPROF_VERBOSE. Under `hyprof run` its preload tried first
 * and said it already.
 */
export function sayWhyV8JitNot(why: string | null, env: NodeJS.ProcessEnv = process.env): void {
  if (!why || !isMainThread || /v8-jit-preload/.test(env.NODE_OPTIONS ?? '')) return;
  const verbose = YES.test(env.HYPROF_VERBOSE ?? env.TAU_VERBOSE ?? '');
  if (!verbose && EXPECTED.test(why)) return;
  process.stderr.write(`hyprof: JIT code events not logged: ${why}; JavaScript frames are named only when node runs with --perf-basic-prof (docs/node.md)\n`);
}
