/**
 * The native addon: the same C runtime as libhyprof.so, loaded into Node with node-gyp-build
 * (a prebuilt binary from prebuilds/ when present, else build/Release).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface HyprofAddon {
  /** Register (or find) an event; returns its handle. */
  event(name: string, group?: string, phase?: boolean): number;
  start(handle: number): void;
  stop(handle: number): void;
  /** Specialise the running timer by a parameter. */
  param(name: string, value: number): void;
  /** Write the raw measurement file now. */
  flush(): void;
}

/** The package root: dist/src/events -> three levels up. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

let addon: HyprofAddon | undefined;

export function loadAddon(): HyprofAddon {
  if (!addon) {
    const require = createRequire(import.meta.url);
    const load = require('node-gyp-build') as (dir: string) => HyprofAddon;
    addon = load(packageRoot);
  }
  return addon;
}
