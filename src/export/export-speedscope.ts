/**
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread over shared frames; each stack is a sample weighted by its own value.
 *
 * Written in pieces, the text JSON.stringify gives for the whole file: the frames table comes first
 * in the file and is only complete when every thread has been walked, so each thread's tree is
 * walked once, writing the frames it adds and keeping its stacks as frame numbers (a few numbers a
 * stack, not objects); the samples are written from those after the last thread.
 */
import { Column } from './export-columns.js';
import type { TauProfile } from '../profile/tau-model.js';
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
  name: string;
  endValue: number;
  kept: Column<Int32Array>;
  depth: Column<Int32Array>;
  newFrames: Column<Int32Array>;
  weights: Column<Float64Array>;
}

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
export function speedscopePieces(profile: TauProfile, sel: ExportSelection = {}, version = '0.1.0', eventsOf?: EventsOf): Generator<string> {
  const { metric, threads } = selectThreads(profile, sel);
  return pieces();

  function* pieces(): Generator<string> {
    const out = new Pieces();
    const frameIndex = new Map<string, number>();
    let nFrames = 0;
    const frameOf = (f: ExportFrame): { id: number; text?: string } => {
      const key = `${f.name}\u0000${f.file ?? ''}\u0000${f.line ?? ''}`;
      const i = frameIndex.get(key);
      if (i !== undefined) return { id: i };
      const id = nFrames++;
      frameIndex.set(key, id);
      const frame = f.file !== undefined ? { name: f.name, file: f.file, line: f.line } : { name: f.name };
      return { id, text: `${id === 0 ? '' : ','}${JSON.stringify(frame)}` };
    };
    let piece = out.add('{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[');
    if (piece) yield piece;
    const done: ThreadSamples[] = [];
    for (const t of threads) {
      const s: ThreadSamples = {
        name: `${threadName(t)} ${metric}`,
        endValue: 0,
        kept: new Column(new Int32Array(0)),
        depth: new Column(new Int32Array(0)),
        newFrames: new Column(new Int32Array(0)),
        weights: new Column(new Float64Array(0)),
      };
      for (const st of stacksIn(threadTree(t, eventsOf))) {
        for (let d = st.fresh; d < st.frames.length; d++) {
          const f = frameOf(st.frames[d]);
          s.newFrames.push(f.id);
          if (f.text && (piece = out.add(f.text))) yield piece;
        }
        s.kept.push(st.fresh);
        s.depth.push(st.frames.length);
        s.weights.push(st.value);
        s.endValue += st.value;
      }
      done.push(s);
    }
    frameIndex.clear();
    if ((piece = out.add(']},"profiles":['))) yield piece;
    const unit = JSON.stringify(isTimeMetric(metric) ? 'microseconds' : 'none');
    for (let ti = 0; ti < done.length; ti++) {
      const s = done[ti];
      done[ti] = undefined as unknown as ThreadSamples; // written: its numbers can go
      let text = `${ti === 0 ? '' : ','}{"type":"sampled","name":${JSON.stringify(s.name)},"unit":${unit},"startValue":0,"endValue":${num(s.endValue)},"samples":[`;
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
    out.add(`],"name":${name},"activeProfileIndex":0,"exporter":${JSON.stringify(`hyprof ${version}`)}}\n`);
    yield out.take();
  }
}

/** The file as an object (tests; small profiles): the pieces, parsed. */
export function exportSpeedscope(profile: TauProfile, sel: ExportSelection = {}, version = '0.1.0', eventsOf?: EventsOf): SpeedscopeFile {
  return JSON.parse([...speedscopePieces(profile, sel, version, eventsOf)].join('')) as SpeedscopeFile;
}
