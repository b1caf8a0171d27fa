/**
 * The second pass of a resolve spread over worker threads (the machine's cores, at most 8): each
 * worker takes the next raw file as soon as it is done with one, so a slow process does not hold the
 * others up. Used when there are many files (an MPI run of many ranks); a few are assembled in the
 * main thread (resolve.ts), where starting workers would cost more than it saves.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { UserError } from '../base/errors.js';
import { inSingleExecutable } from '../base/single-executable.js';
import type { Symbolizer } from '../symbolize/symbolizer.js';
import type { AssembleJob, FilePart } from './resolve-file.js';

/** How many workers for `files` raw files: HYPROF_RESOLVE_WORKERS (0: none), else one per core up to 8, one per 4 files.
 * None in the single executable: a worker runs a script file (resolve-worker.js), and it has none. */
export function workerCount(files: number, env: NodeJS.ProcessEnv = process.env): number {
  if (inSingleExecutable()) return 0;
  const asked = env.HYPROF_RESOLVE_WORKERS;
  if (asked !== undefined && /^\d+$/.test(asked.trim())) return Math.min(Number(asked), files);
  if (files < 8) return 0;
  return Math.max(0, Math.min(availableParallelism(), 8, Math.ceil(files / 4)));
}

export async function assembleInWorkers(
  files: string[],
  job: AssembleJob,
  symbolizer: Symbolizer,
  choice: 'auto' | 'llvm-symbolizer' | 'addr2line' | undefined,
  workers: number,
  onPart: (part: FilePart, done: number) => void,
): Promise<string[]> {
  let next = 0;
  let done = 0;
  let failed: Error | null = null;
  const warnings: string[] = [];
  const url = new URL('./resolve-worker.js', import.meta.url);
  const runOne = () =>
    new Promise<void>((resolvePromise, reject) => {
      const w = new Worker(url, { workerData: { job, symbolizer: choice, table: symbolizer.table() } });
      const give = () => {
        if (failed || next >= files.length) w.postMessage({ stop: true });
        else w.postMessage({ file: files[next++] });
      };
      w.on('message', (msg: { ready?: boolean; part?: FilePart; warnings?: string[]; error?: string; user?: boolean; exitCode?: number; stack?: string }) => {
        if (msg.ready) give();
        else if (msg.part) {
          onPart(msg.part, ++done);
          give();
        } else if (msg.warnings) warnings.push(...msg.warnings);
        else if (msg.error !== undefined) {
          failed ??= msg.user ? new UserError(msg.error, msg.exitCode) : Object.assign(new Error(msg.error), { stack: msg.stack });
          w.postMessage({ stop: true });
        }
      });
      w.on('error', (e) => {
        failed ??= outOfMemory(e) ?? e;
        reject(failed);
      });
      w.on('exit', () => resolvePromise());
    });
  await Promise.all(Array.from({ length: workers }, runOne));
  if (failed) throw failed;
  return [...new Set(warnings)];
}

/**
 * A worker whose V8 heap ran out is the machine's or the heap limit's doing, not a bug: said as such,
 * with what to change (the main thread running out aborts node itself, with V8's own message).
 */
function outOfMemory(e: Error): UserError | null {
  if ((e as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') return null;
  return new UserError(
    'a resolve worker ran out of memory (its JavaScript heap reached its limit): resolve with fewer workers ' +
      '(HYPROF_RESOLVE_WORKERS=1, or 0 for the main thread alone) or a larger heap (NODE_OPTIONS=--max-old-space-size=<MB>)',
    1,
  );
}
