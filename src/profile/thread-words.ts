/**
 * A thread in the words every view uses for it: `rank 3 · thread 1 "io"` in an MPI run (the node is
 * the rank), TAU's `n,c,t 0,0,1 "io"` otherwise. The viewer's thread list and the pprof export's
 * labels share them, so `-tagfocus` takes what the page shows.
 */
import { namedThreadLabel, threadNameOf, type TauProfile, type TauThreadProfile } from './tau-model.js';

/** True when some process of the profile knew its MPI rank (the `MPI Rank` attribute of its thread 0). */
export function isMpiProfile(profile: Pick<TauProfile, 'threads'>): boolean {
  return (profile.threads[0] ?? []).some((t) => t.context === 0 && t.thread === 0 && t.metadata.some(([k]) => k === 'MPI Rank'));
}

export function threadWords(t: Pick<TauThreadProfile, 'node' | 'context' | 'thread' | 'metadata'>, mpi: boolean): string {
  if (!mpi) return namedThreadLabel(t);
  const name = threadNameOf(t);
  return `rank ${t.node}${t.context !== 0 ? ` · context ${t.context}` : ''} · thread ${t.thread}${name ? ` "${name}"` : ''}`;
}
