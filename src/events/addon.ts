/**
 * The native addon: the same C runtime as libhyprof.so, loaded into Node with node-gyp-build
 * (a build from source in build/Release when there is one, else the prebuilt binary npm installed in
 * prebuilds/<platform>-<arch>).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sayWhyV8JitNot, startV8Jit } from './v8-jit.js';

export interface HyprofAddon {
  /** Register (or find) an event; returns its handle (the event id), or -1 when measurement is off. */
  event(name: string, group?: string, phase?: boolean): number;
  start(handle: number): void;
  stop(handle: number): void;
  /** Specialise the running timer by a parameter. */
  param(name: string, value: number): void;
  /** Write the raw measurement file now. */
  flush(): void;
  /** Measure the calling thread from now on (optionally naming it in the profile). */
  registerThread(name?: string): void;
  /** Record a misuse warning on the calling thread (kept in the profile). */
  warn(text: string): void;
  /** The event of parameter region `current` (base `base`) specialised by name = value; -1 when off. */
  paramEvent(current: number, base: number, name: string, value: number): number;
  /** Async regions: begin (under the current context, with its first slice running); returns a slot. */
  asyncBegin(handle: number, base?: number): number;
  /** The sync region `handle` on top returned a promise: continue it as an async region (slot, or -1). */
  adopt(handle: number): number;
  /** A slice of the async region's own code begins / ends (its continuations). */
  sliceBegin(slot: number): void;
  sliceEnd(slot: number): void;
  /** Settlement: record the region's statistics whole and its settle time, and free the slot
   * (`unsettled`: still pending at the thread's exit; its time so far is recorded apart). */
  asyncEnd(slot: number, unsettled?: boolean): void;
}

/** The package root: dist/src/events -> three levels up. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

let addon: HyprofAddon | undefined;

export function loadAddon(): HyprofAddon {
  if (!addon) {
    const require = createRequire(import.meta.url);
    const load = require('node-gyp-build') as ((dir: string) => HyprofAddon) & { resolve(dir: string): string };
    addon = load(packageRoot);
    // JavaScript frames in samples, named from V8's JIT code events (v8-jit.ts); without it they are
    // named only when node was started with --perf-basic-prof (docs/node.md), which is said.
    sayWhyV8JitNot(startV8Jit(packageRoot, load.resolve(packageRoot)));
  }
  return addon;
}
