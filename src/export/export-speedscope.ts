/**
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread over shared frames; each stack is a sample weighted by its own value.
 *
 * Written in pieces, the text JSON.stringify gives for the whole file. The frames table comes first
 * in the file and is only complete when every thread has been walked, so the threads are walked
 * twice when there are many: a first walk writes the frames each thread adds (the frame table, kept
 * as a map from a frame to its number, grows with the distinct frames, not with the threads) and
 * keeps the thread's stacks as frame numbers (a few numbers a stack, not objects) while all threads
 * kept so far stay under KEEP_BYTES; after the frames, a thread kept is written from its
 * numbers and any other is read and walked again, its frames looked up by name. So a profile of
 * 100,000 small threads is held as its frames and one thread, not as every thread's stacks, and a
 * profile that fits (most do) is read once.
 */
import { Column } from './export-columns.js';
import { UserError } from '../base/errors.js';
import type { TauProfile, TauThreadProfile } from '../profile/tau-model.js';
import { isTimeMetric, selectThreads, stacksIn, threadName, threadTree, type EventsOf, type ExportFrame, type ExportSelection } from './export-common.js';

export interface SpeedscopeFile {
  $schema: 'https://www.speedscope.app/file-format-schema.json';
  shared: { frames: Array<{ name: string; file?: string; line?: number }> };
  profiles: Array<{
    type: 'sampled';
    name: string;
    unit: 'microseconds' | 'none';
    startValue: number;
    endValue: number;
    samples: number[][];
    weights: number[];
  }>;
  name: string;
  activeProfileIndex: number;
  exporter: string;
}

/** One thread's stacks as frame numbers: per stack, how many frames it shares with the one before, and its new frames. */
interface ThreadSamples {
  kept: Column<Int32Array>;
  depth: Column<Int32Array>;
  newFrames: Column<Int32Array>;
  weights: Column<Float64Array>;
}

/**
 * Bytes of stacks kept from the first walk, over all threads kept (the first thread is always kept,
 * whatever its size): 20 to 30 bytes a stack; threads beyond are walked again.
 */
export const KEEP_BYTES = 32 << 20;

const bytesOf = (s: ThreadSamples): number => s.kept.bytes + s.depth.bytes + s.newFrames.bytes + s.weights.bytes;

const num = (v: number): string => (Number.isFinite(v) ? String(v) : 'null');

/** Text pieces of about 64 KB. */
class Pieces {
  private buf: string[] = [];
  private len = 0;
  add(s: string): string | undefined {
    this.buf.push(s);
    this.len += s.length;
    return this.len >= 1 << 16 ? this.take() : undefined;
  }
  take(): string {
    const s = this.buf.join('');
    this.buf = [];
    this.len = 0;
    return s;
  }
}

/**
 * The file's text in pieces (with the final newline). The selection is checked at once, before any
 * piece is asked for. `eventsOf` gives a thread's events (export-source.ts).
 */
export function speedscopePieces(
  profile: TauProfile,
  sel: ExportSelection = {},
  version = '0.1.0',
  eventsOf?: EventsOf,
  keepBytes = KEEP_BYTES,
): Generator<string> {
  const { metric, threads } = selectThreads(profile, sel);
  return pieces();

  function* pieces(): Generator<string> {
    const out = new Pieces();
    const frameIndex = new Map<string, number>();
    const keyOf = (f: ExportFrame): string => `${f.name}\u0000${f.file ?? ''}\u0000${f.line ?? ''}`;
    let nFrames = 0;
    const frameOf = (f: ExportFrame): { id: number; text?: string } => {
      const key = keyOf(f);
      const i = frameIndex.get(key);
      if (i !== undefined) return { id: i };
      const id = nFrames++;
      frameIndex.set(key, id);
      const frame = f.file !== undefined ? { name: f.name, file: f.file, line: f.line } : { name: f.name };
      return { id, text: `${id === 0 ? '' : ','}${JSON.stringify(frame)}` };
    };
    let piece = out.add('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[');
    if (piece) yield piece;
    // First walk: the frames; each thread's total, and its stacks while they fit.
    const endValues = new Column(new Float64Array(0));
    const kept: Array<ThreadSamples | undefined> = [];
    let keptBytes = 0;
    for (let ti = 0; ti < threads.length; ti++) {
      const s: ThreadSamples = {
        kept: new Column(new Int32Array(0)),
        depth: new Column(new Int32Array(0)),
        newFrames: new Column(new Int32Array(0)),
        weights: new Column(new Float64Array(0)),
      };
      let endValue = 0;
      for (const st of stacksIn(threadTree(threads[ti], eventsOf))) {
        for (let d = st.fresh; d < st.frames.length; d++) {
          const f = frameOf(st.frames[d]);
          s.newFrames.push(f.id);
          if (f.text && (piece = out.add(f.text))) yield piece;
        }
        s.kept.push(st.fresh);
        s.depth.push(st.frames.length);
        s.weights.push(st.value);
        endValue += st.value;
      }
      endValues.push(endValue);
      // a small thread's columns are mostly room (1,024 slots each): trimmed before they count
      if (ti > 0) for (const c of [s.kept, s.depth, s.newFrames, s.weights]) c.trim();
      const keep = ti === 0 || keptBytes + bytesOf(s) <= keepBytes;
      kept.push(keep ? s : undefined);
      if (keep) keptBytes += bytesOf(s);
    }
    if ((piece = out.add(']},"profiles":['))) yield piece;
    const unit = JSON.stringify(isTimeMetric(metric) ? 'microseconds' : 'none');
    for (let ti = 0; ti < threads.length; ti++) {
      const s = kept[ti] ?? walkAgain(threads[ti]);
      kept[ti] = undefined; // written: its numbers can go
      const name = `${threadName(threads[ti])} ${metric}`;
      let text = `${ti === 0 ? '' : ','}{"type":"sampled","name":${JSON.stringify(name)},"unit":${unit},"startValue":0,"endValue":${num(endValues.at(ti))},"samples":[`;
      if ((piece = out.add(text))) yield piece;
      const path: number[] = [];
      for (let i = 0, at = 0; i < s.weights.length; i++) {
        path.length = s.kept.at(i);
        for (let d = path.length; d < s.depth.at(i); d++) path.push(s.newFrames.at(at++));
        if ((piece = out.add(`${i === 0 ? '' : ','}[${path.join(',')}]`))) yield piece;
      }
      if ((piece = out.add('],"weights":['))) yield piece;
      for (let i = 0; i < s.weights.length; i++) {
        text = i === 0 ? num(s.weights.at(i)) : `,${num(s.weights.at(i))}`;
        if ((piece = out.add(text))) yield piece;
      }
      if ((piece = out.add(']}'))) yield piece;
    }
    const name = JSON.stringify(`${profile.dir} (${metric})`);
    // The last text: the piece it completes, or what is left (a completed piece was once dropped
    // here, cutting a file that crossed 64 KB at its end).
    yield out.add(`],"name":${name},"activeProfileIndex":0,"exporter":${JSON.stringify(`hyprof ${version}`)}}\n`) ?? out.take();

    /** A thread not kept from the first walk: read and walked again, its frames numbered as then. */
    function walkAgain(t: TauThreadProfile): ThreadSamples {
      const s: ThreadSamples = {
        kept: new Column(new Int32Array(0)),
        depth: new Column(new Int32Array(0)),
        newFrames: new Column(new Int32Array(0)),
        weights: new Column(new Float64Array(0)),
      };
      for (const st of stacksIn(threadTree(t, eventsOf))) {
        for (let d = st.fresh; d < st.frames.length; d++) {
          const id = frameIndex.get(keyOf(st.frames[d]));
          if (id === undefined) throw new UserError(`${threadName(t)}: its profile changed while it was exported (a frame not there before: ${st.frames[d].name})`);
          s.newFrames.push(id);
        }
        s.kept.push(st.fresh);
        s.depth.push(st.frames.length);
        s.weights.push(st.value);
      }
      return s;
    }
  }
}

/** The file as an object (tests; small profiles): the pieces, parsed. */
export function exportSpeedscope(profile: TauProfile, sel: ExportSelection = {}, version = '0.1.0', eventsOf?: EventsOf): SpeedscopeFile {
  return JSON.parse([...speedscopePieces(profile, sel, version, eventsOf)].join('')) as SpeedscopeFile;
}
