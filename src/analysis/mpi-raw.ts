/**
 * The MPI section (tag 10) of a raw measurement file (docs/raw-format.md): the call sites of every
 * MPI call the layer measured (native/mpi). The rest of the file is read and checked by
 * src/samples/raw-reader.ts, which skips this tag; this module finds the section in the same bytes.
 */
import { readFileSync } from 'node:fs';
import { findSection } from '../samples/raw-reader.js';

export const MPI_SECTION_TAG = 10;

/** One call site: the MPI call's event and context, where it was called from, how often, how long. */
export interface MpiCallSite {
  thread: number;
  event: number;
  /** The MPI call's context (its event under the caller's context). */
  context: bigint;
  /** Return address into the caller. */
  pc: bigint;
  /** Load bias and file of the object holding pc (the layer records them: no memory map is needed). */
  bias: bigint;
  path: string;
  calls: number;
  /** Inclusive time, ns. */
  ns: number;
}

/** The call sites recorded in `file`, or null when the process ran without the MPI layer. */
export function readMpiSection(file: string, buf: Buffer = readFileSync(file)): MpiCallSite[] | null {
  const c = findSection(file, buf, MPI_SECTION_TAG);
  if (!c) return null;
  const n = c.count('call sites', 52);
  const sites: MpiCallSite[] = [];
  for (let i = 0; i < n; i++) {
    sites.push({
      thread: c.u32('thread index'),
      event: c.u32('event'),
      context: c.u64('context'),
      pc: c.u64('call site'),
      bias: c.u64('load bias'),
      path: c.str('object file'),
      calls: c.u64n('calls'),
      ns: c.u64n('time'),
    });
  }
  c.done();
  return sites;
}
