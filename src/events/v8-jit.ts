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

const YES = /^(1|on|true|yes|enable|enabled)$/i;
const NO = /^(0|off|false|no|disable|disabled)$/i;

/** Start the V8 part on this thread; returns why it did not start, or null when it runs. */
export function startV8Jit(packageRoot: string, addonFile: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!YES.test(env.HYPROF_SAMPLING ?? env.TAU_SAMPLING ?? '')) return 'sampling is off';
  if (NO.test(env.HYPROF_V8_JIT ?? '')) return 'HYPROF_V8_JIT is off';
  const part = join(packageRoot, 'build', 'Release', 'hyprof_v8.node');
  if (!existsSync(part)) return `${part} is not built`;
  try {
    const why = (createRequire(import.meta.url)(part) as { start(runtime?: string): string }).start(addonFile ?? undefined);
    // as the preload does (v8-jit-preload.cts): code stays where it was compiled
    if (!why) setFlagsFromString('--no-compact-code-space');
    return why || null;
  } catch (e) {
    return `${part} does not load in this node (${String((e as Error).message).split('\n')[0]})`;
  }
}
