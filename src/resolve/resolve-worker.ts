/**
 * A resolve worker (worker_threads, started by resolve-workers.ts): it assembles the raw files the
 * main thread hands it, one at a time, with the symbols the main thread found in the first pass, and
 * writes their threads' files into the profile's temporary directory. Messages:
 *   in:  { file } | { stop: true }
 *   out: { ready: true } | { part } | { warnings } (before it ends) | { error, user, exitCode }
 */
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../base/errors.js';
import { Symbolizer } from '../symbolize/symbolizer.js';
import type { SourceFrame } from '../symbolize/frames.js';
import { assembleFile, type AssembleJob } from './resolve-file.js';

interface Start {
  job: AssembleJob;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  table: Map<string, Map<bigint, SourceFrame[] | null>>;
}

const port = parentPort!;
const start = workerData as Start;
const symbolizer = new Symbolizer({ symbolizer: start.symbolizer });
symbolizer.adopt(start.table);

port.on('message', (msg: { file?: string; stop?: boolean }) => {
  if (msg.stop) {
    port.postMessage({ warnings: symbolizer.warnings });
    port.close();
    return;
  }
  assembleFile(msg.file!, start.job, symbolizer).then(
    (part) => port.postMessage({ part }),
    (e: unknown) =>
      port.postMessage({
        error: e instanceof Error ? e.message : String(e),
        user: e instanceof UserError,
        exitCode: e instanceof UserError ? e.exitCode : 1,
        stack: e instanceof Error ? e.stack : undefined,
      }),
  );
});
port.postMessage({ ready: true });
