/**
 * A profile directory as `hyprof export` reads it: every thread's node, context, thread, metric and
 * metadata from its file's first two lines, its user events from its last lines, its complete stacks
 * from the stacks files, and its events
 * read from its file only when the export comes to it, one line at a time (tau-reader.ts
 * readThreadLines, the reader report uses, with the same checks and messages as the whole-file one).
 * So an export holds one thread's tree at a time and never a parsed thread. Of the other threads it
 * keeps only what the exporters read - the thread's name and the settle-time user events pprof
 * writes as sample types (the first thread keeps all its metadata: the run's settings) - as own
 * copies, so that 100,000 threads cost a few numbers each, not their metadata (MPI call sites,
 * settings) or the text it was cut from. TAU's merged format (one file for every thread) is read
 * whole, as the other readers read it.
 */
import { attachStacks } from '../profile/stacks-file.js';
import type { EventsOf } from './export-common.js';
import type { TauProfile, TauThreadProfile } from '../profile/tau-model.js';
import { listProfileFiles, ownString, readProfileHeader, readTauProfileDir, readThreadLines, readUserEventsAtEnd } from '../profile/tau-reader.js';
import { settledRegion, unsettledRegion } from '../profile/settle-events.js';

const own = ([k, v]: [string, string]): [string, string] => [ownString(k), ownString(v)];

export interface ExportSource {
  /** The threads without their events (their `events` are empty), with their stacks. */
  profile: TauProfile;
  eventsOf: EventsOf;
}

/** `onFile` is told before each file's first lines are read (progress for thousands of threads). */
export function openExportSource(dir: string, onFile?: (file: string, index: number, total: number) => void): ExportSource {
  const sets = listProfileFiles(dir);
  if (sets.some((s) => s.merged)) return { profile: readTauProfileDir(dir, onFile), eventsOf: (t, visit) => t.events.forEach((e) => visit(e)) };
  const files = new Map<TauThreadProfile, Parameters<typeof readThreadLines>[0]>();
  const profile: TauProfile = { dir, metrics: [], threads: [] };
  const total = sets.reduce((n, s) => n + s.files.length, 0);
  let index = 0;
  let seenFirst = false;
  for (const set of sets) {
    const threads = set.files.map((f) => {
      onFile?.(f.file, index++, total);
      const first = !seenFirst;
      seenFirst = true;
      const head = readProfileHeader(f.file);
      const metadata = (first ? head.metadata : head.metadata.filter(([k]) => k === 'Thread Name')).map(own);
      // the user events (the file's last lines) are known first: the pprof export's sample types
      // depend on them (an async region's settle time, export-pprof.ts); the others are not exported
      const userEvents = readUserEventsAtEnd(f.file)
        .filter((u) => settledRegion(u.name) !== undefined || unsettledRegion(u.name) !== undefined)
        .map((u) => ({ ...u, name: ownString(u.name) }));
      const t: TauThreadProfile = { node: f.node, context: f.context, thread: f.thread, metric: head.metric, events: [], userEvents, metadata };
      files.set(t, f);
      return t;
    });
    profile.metrics.push(threads[0].metric);
    profile.threads.push(threads);
  }
  attachStacks(profile);
  const eventsOf: EventsOf = (t, visit) =>
    readThreadLines(files.get(t)!, {
      begin() {},
      event: (name, calls, subrs, excl, incl, group) => visit({ name, calls, subrs, excl, incl, group }),
      userEvent() {},
      end() {},
    });
  return { profile, eventsOf };
}
