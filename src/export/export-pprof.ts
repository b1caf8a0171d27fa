/**
 * Google pprof (profile.proto, gzip-compressed) through the pprof-format package, shaped so that
 * pprof's own views work: sampled code becomes real functions (name, source file) at locations with
 * their line numbers, in mappings naming the object file and its build id (from modules.json, when
 * the profile has it), so `pprof -top` ranks functions and `pprof -list f` shows f's lines. hyprof's
 * contexts stay visible: the timer path (phases, parameter values) is the root part of every stack,
 * as functions without a file, and each sample carries `thread` (in the viewer's words: `rank 1 ·
 * thread 0`, `n,c,t 0,0,1 "io"`), `rank` (MPI runs) and `thread name` (threads the program named)
 * and `context` labels (`pprof -tagfocus`). Every stack of every selected thread is one sample with
 * a value per sample type: calls as TAU counts them (samples, for sampled code), then each metric of
 * the run (nanoseconds for time metrics; only the one `--metric` names, when given), so
 * `-sample_index` picks one. A stack's values of metrics after the first come in samples of their
 * own (the others 0): pprof adds samples of the same stack up.
 *
 * Async regions (Node) add a last sample type, `settle_time` (nanoseconds): the wall time from each
 * instance's start to its settlement, summed, in one sample per region and thread at the region's
 * timer path (its name alone when the region has several paths: the profile keeps the settle time
 * per region), with `settled` (instances) and `settle_max` (nanoseconds) numeric labels. Its samples
 * are 0 in every other type, so the other types' totals are what they were; `-sample_index=settle_time`
 * ranks regions by the time awaited in them.
 */
import { deflateRawSync, gzipSync, inflateRawSync } from 'node:zlib';
import { emptyTableToken, Function as PFunction, Label, Line, Location, Mapping, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { readModulesFile, type ModuleIndex } from '../profile/modules-file.js';
import { Column, setAt } from './export-columns.js';
import { threadNameOf, type TauProfile, type TauThreadProfile } from '../profile/tau-model.js';
import { isMpiProfile, threadWords } from '../profile/thread-words.js';
import { isTimeMetric, selectThreads, stacksIn, threadTree, type EventsOf, type ExportFrame, type ExportSelection } from './export-common.js';
import { settleStatsOf } from '../profile/settle-events.js';
import { displayName } from '../profile/tau-model.js';
import { splitPath } from '../profile/event-tree.js';

function metaNumber(profile: TauProfile, key: string): number | undefined {
  const v = profile.threads[0]?.[0]?.metadata.find(([k]) => k === key)?.[1];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** Records per encoded piece. */
const BATCH = 4096;

/**
 * The bytes pprof-format writes for these top-level fields alone: a profile holding only them (and
 * an empty string table) encodes to exactly its part of the whole profile's encoding, which is its
 * fields one after another in a fixed order (sample types, samples, mappings, locations, functions,
 * strings, then the single values).
 */
function encodePart(fields: ConstructorParameters<typeof Profile>[0]): Uint8Array {
  return new Profile({ ...fields, stringTable: new StringTable(emptyTableToken) }).encode();
}

/** A label's labels below it are found by a scan up to this many, by a map beyond. */
const SCAN_LABELS = 8;

/**
 * The string table: each string once, numbered in the order first asked for. Context labels (the
 * timer path of a sample, `a => b => c`) are most of a large profile's strings, one per context, so
 * labels are kept as a tree: a label is the label above it (its frames but the last) and the number
 * of its last frame's name. A label given to a sample takes a number in the table like any string;
 * its text is spelled out only when the table is encoded.
 */
class Strings {
  /** The string of each number; undefined for a label's (see `labelOf`). */
  private readonly list: Array<string | undefined> = [''];
  private readonly ids = new Map<string, number>([['', 0]]);
  /** Labels: the label above (-1: none) and the number of the last frame's name. */
  private above: Int32Array = new Int32Array(1024);
  private lastName: Int32Array = new Int32Array(1024);
  private labelCount = 0;
  /** Labels below a label (+ 1; 0: none): the first, each one's next, how many; a map when many. */
  private firstBelow: Int32Array = new Int32Array(1024);
  private nextBelow: Int32Array = new Int32Array(1024);
  private countBelow: Int32Array = new Int32Array(1024);
  private readonly belowMaps = new Map<number, Map<number, number>>();
  private readonly topLabels = new Map<number, number>();
  /** The string number of each label + 1 (0: it has none yet), and the label of each string number. */
  private stringOfLabel: Int32Array = new Int32Array(1024);
  private labelOf: Int32Array = new Int32Array(1024);

  dedup(s: string): number {
    let id = this.ids.get(s) ?? (s.includes(' => ') ? this.labelString(s) : undefined);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  /** The label below `above` (-1: none) whose last name is string number `name`, or -1. */
  private findLabel(above: number, name: number): number {
    if (above < 0) return this.topLabels.get(name) ?? -1;
    const map = this.belowMaps.get(above);
    if (map) return map.get(name) ?? -1;
    for (let c = (this.firstBelow[above] ?? 0) - 1; c >= 0; c = this.nextBelow[c] - 1) if (this.lastName[c] === name) return c;
    return -1;
  }

  /** The label of the label `above` (-1: none) and then the frame whose name is string number `name`. */
  label(above: number, name: number): number {
    let id = this.findLabel(above, name);
    if (id >= 0) return id;
    id = this.labelCount++;
    this.above = setAt(this.above, id, above);
    this.lastName = setAt(this.lastName, id, name);
    if (above < 0) {
      this.topLabels.set(name, id);
      return id;
    }
    this.nextBelow = setAt(this.nextBelow, id, this.firstBelow[above] ?? 0);
    this.firstBelow = setAt(this.firstBelow, above, id + 1);
    const count = (this.countBelow[above] ?? 0) + 1;
    this.countBelow = setAt(this.countBelow, above, count);
    let map = this.belowMaps.get(above);
    if (!map && count > SCAN_LABELS) {
      map = new Map();
      for (let c = (this.firstBelow[above] ?? 0) - 1; c >= 0; c = this.nextBelow[c] - 1) map.set(this.lastName[c], c);
      this.belowMaps.set(above, map);
    } else map?.set(name, id);
    return id;
  }

  /** The string number of a label whose text is `text`. */
  labelNumber(label: number, text: string): number {
    if (this.above[label] < 0) return this.dedup(text);
    const had = this.stringOfLabel[label];
    if (had > 0) return had - 1;
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(undefined);
      this.labelOf = setAt(this.labelOf, id, label);
    }
    this.stringOfLabel = setAt(this.stringOfLabel, label, id + 1);
    return id;
  }

  /** The string number of a label whose text is `s`, or undefined (frame names never hold ` => `). */
  private labelString(s: string): number | undefined {
    let label = -1;
    for (const part of s.split(' => ')) {
      const name = this.ids.get(part);
      label = name === undefined ? -1 : this.findLabel(label, name);
      if (label < 0) return undefined;
    }
    const id = this.stringOfLabel[label] - 1;
    return id >= 0 && this.list[id] === undefined ? id : undefined;
  }

  private text(id: number): string {
    const own = this.list[id];
    if (own !== undefined) return own;
    const names: string[] = [];
    for (let l = this.labelOf[id]; l >= 0; l = this.above[l]) names.push(this.list[this.lastName[l]]!);
    return names.reverse().join(' => ');
  }

  /** Its encoding in pieces. */
  *encoded(): Generator<Uint8Array> {
    for (let i = 0; i < this.list.length; i += BATCH) {
      const part = new StringTable(emptyTableToken);
      for (let j = i; j < Math.min(i + BATCH, this.list.length); j++) part.dedup(this.text(j));
      yield part.encode();
    }
  }
}

/**
 * Functions, locations and mappings, each created once, kept as numbers (a profile of 10^6 phases
 * has 10^6 functions and locations); made into pprof-format objects only to be encoded.
 */
class Tables {
  readonly mappings: Mapping[] = [];
  private readonly mappingIds = new Map<number, number>();
  private readonly fnName = new Column(new Int32Array(0));
  private readonly fnFile = new Column(new Int32Array(0));
  private readonly fnStart = new Column(new Float64Array(0));
  private readonly locMapping = new Column(new Int32Array(0));
  private readonly locFunction = new Column(new Int32Array(0));
  private readonly locLine = new Column(new Float64Array(0));
  /**
   * Functions without a file or first line (timers), by the number of their name in the string
   * table (0: none yet); the others by name, file and first line.
   */
  private plainFunctions: Int32Array = new Int32Array(1024);
  private readonly functionIds = new Map<string, number>();
  /** Locations of timer path frames (no file, line, module), by the number of their name; sampled code's by its key. */
  private timerLocations: Int32Array = new Int32Array(1024);
  private readonly codeLocations = new Map<string, number>();

  constructor(
    private readonly strings: Strings,
    private readonly modules: ModuleIndex | null,
  ) {}

  private mapping(module: number | undefined): number {
    if (module === undefined || !this.modules) return 0;
    let id = this.mappingIds.get(module);
    if (id === undefined) {
      const m = this.modules.modules[module];
      id = this.mappings.length + 1;
      this.mappings.push(
        new Mapping({
          id,
          filename: this.strings.dedup(m.path),
          buildId: this.strings.dedup(m.buildId),
          hasFunctions: true,
          hasFilenames: true,
          hasLineNumbers: true,
          hasInlineFrames: true,
        }),
      );
      this.mappingIds.set(module, id);
    }
    return id;
  }

  private function(name: string, file: string, startLine: number): number {
    // The name and file are numbered first, as they were when each function was made on first use.
    const n = this.strings.dedup(name);
    const f = this.strings.dedup(file);
    const plain = file === '' && startLine === 0;
    const key = plain ? '' : `${n}\u0000${f}\u0000${startLine}`;
    let id = plain ? this.plainFunctions[n] || undefined : this.functionIds.get(key);
    if (id === undefined) {
      id = this.fnName.length + 1;
      this.fnName.push(n);
      this.fnFile.push(f);
      this.fnStart.push(startLine);
      if (plain) this.plainFunctions = setAt(this.plainFunctions, n, id);
      else this.functionIds.set(key, id);
    }
    return id;
  }

  private newLocation(functionId: number, mappingId: number, line: number): number {
    this.locFunction.push(functionId);
    this.locMapping.push(mappingId);
    this.locLine.push(line);
    return this.locFunction.length;
  }

  /** The location of a frame: sampled code at its line, in its module; a timer as a bare function. */
  location(f: ExportFrame): number {
    if (f.kind !== 'code') {
      const n = this.strings.dedup(f.name);
      let id = this.timerLocations[n];
      if (!id) {
        id = this.newLocation(this.function(f.name, '', 0), 0, 0);
        this.timerLocations = setAt(this.timerLocations, n, id);
      }
      return id;
    }
    const file = f.file ?? '';
    const line = f.line ?? 0;
    let module: number | undefined;
    if (this.modules) {
      const unresolved = /^UNRESOLVED (\/\S+)/.exec(f.name);
      module = unresolved ? this.modules.ofPath(unresolved[1]) : this.modules.ofFunction(f.name, file);
    }
    const key = `${f.name}\u0000${file}\u0000${line}\u0000${module ?? ''}\u0000${f.startLine ?? 0}`;
    let id = this.codeLocations.get(key);
    if (id === undefined) {
      const functionId = this.function(f.name, file, f.startLine ?? 0);
      id = this.newLocation(functionId, this.mapping(module), line);
      this.codeLocations.set(key, id);
    }
    return id;
  }

  *encodedLocations(): Generator<Uint8Array> {
    for (let i = 0; i < this.locFunction.length; i += BATCH) {
      const location: Location[] = [];
      for (let j = i; j < Math.min(i + BATCH, this.locFunction.length); j++) {
        location.push(new Location({ id: j + 1, mappingId: this.locMapping.at(j), line: [new Line({ functionId: this.locFunction.at(j), line: this.locLine.at(j) })] }));
      }
      yield encodePart({ location });
    }
  }

  *encodedFunctions(): Generator<Uint8Array> {
    for (let i = 0; i < this.fnName.length; i += BATCH) {
      const fns: PFunction[] = [];
      for (let j = i; j < Math.min(i + BATCH, this.fnName.length); j++) {
        // No system (mangled) name: hyprof's names are demangled already, and pprof demangles a
        // function whose system name equals its name again, which turns `<OpenMP barrier wait>` into
        // an empty name it shows as `<unknown>`.
        fns.push(new PFunction({ id: j + 1, name: this.fnName.at(j), filename: this.fnFile.at(j), startLine: this.fnStart.at(j) }));
      }
      yield encodePart({ function: fns });
    }
  }
}

/**
 * The profile, not yet compressed, in pieces: the bytes Profile.encode() gives for the whole profile.
 * Samples are encoded as they are made (a few bytes each instead of objects); they are handed out
 * after the sample types, whose string numbers are known only when every sample is made.
 * The selection is checked at once, before any piece is asked for. `eventsOf` gives a thread's
 * events (export-source.ts).
 */
export function pprofPieces(profile: TauProfile, sel: ExportSelection = {}, eventsOf?: EventsOf): Generator<Uint8Array> {
  const { metric, threads } = selectThreads(profile, sel);
  // Every metric of the run, unless one was asked for: the same threads (by n,c,t) in each.
  const metrics = sel.metric !== undefined ? [metric] : profile.metrics;
  const key = (t: TauThreadProfile): string => `${t.node},${t.context},${t.thread}`;
  const chosen = new Set(threads.map(key));
  const threadsOf = (m: string): TauThreadProfile[] => (m === metric ? threads : profile.threads[profile.metrics.indexOf(m)].filter((t) => chosen.has(key(t))));
  const mpi = isMpiProfile(profile);
  // the settle_time sample type is there when a selected thread has an async region that settled
  const settleSlot = threads.some((t) => [...settleStatsOf(t.userEvents).values()].some((x) => x.count > 0)) ? metrics.length + 1 : undefined;
  const width = metrics.length + 1 + (settleSlot !== undefined ? 1 : 0);
  return pieces();

  function* pieces(): Generator<Uint8Array> {
    const strings = new Strings();
    const tables = new Tables(strings, readModulesFile(profile.dir));
    // Encoded samples wait for the sample types (first in the file); compressed meanwhile (about a
    // fifth of their size: 60 MB at 10^6 phases), as the file will be.
    const encodedSamples: Uint8Array[] = [];
    const keep = (part: Uint8Array): void => void encodedSamples.push(deflateRawSync(part, { level: 1 }));
    let batch: Sample[] = [];
    /**
     * The string number of the context label of a path whose deepest frame is at depth d: the
     * names of the frames down to d that are not code. Labels of the frames above are looked up
     * as labels only (numbered in the table only when a sample has them, as the table always did).
     */
    const labelNumber = (frames: readonly ExportFrame[], d: number): number => {
      let at = d;
      while (at >= 0 && frames[at].kind === 'code') at--;
      return at < 0 ? strings.dedup('') : strings.labelNumber(labelAt(frames, at), contexts[at]);
    };
    /** The label of the frames down to depth `at` (a frame that is not code), remembered per depth. */
    const labelAt = (frames: readonly ExportFrame[], at: number): number => {
      if (labels[at] === undefined) {
        let up = at - 1;
        while (up >= 0 && frames[up].kind === 'code') up--;
        // The name has its number already: the frame's location was made first.
        labels[at] = strings.label(up < 0 ? -1 : labelAt(frames, up), strings.dedup(frames[at].name));
      }
      return labels[at];
    };
    let labels: Array<number | undefined> = [];
    let contexts: string[] = [];
    const threadKey = strings.dedup('thread');
    const contextKey = strings.dedup('context');
    const rankKey = strings.dedup('rank');
    const nameKey = strings.dedup('thread name');
    for (let slot = 0; slot < metrics.length; slot++) {
      const time = isTimeMetric(metrics[slot]);
      for (const t of threadsOf(metrics[slot])) {
        const name = threadNameOf(t);
        const threadLabels = [
          new Label({ key: threadKey, str: strings.dedup(threadWords(t, mpi)) }),
          ...(mpi ? [new Label({ key: rankKey, str: strings.dedup(String(t.node)) })] : []),
          ...(name ? [new Label({ key: nameKey, str: strings.dedup(name) })] : []),
        ];
        // Per depth of the walk's path: the frame's location, and the timer path (the context label)
        // down to it: its text, and how many frames it names.
        const ids: number[] = [];
        contexts = [];
        const named: number[] = [];
        labels = [];
        for (const s of stacksIn(threadTree(t, eventsOf))) {
          ids.length = s.fresh;
          contexts.length = s.fresh;
          named.length = s.fresh;
          labels.length = s.fresh;
          for (let d = s.fresh; d < s.frames.length; d++) {
            const f = s.frames[d];
            const before = d > 0 ? contexts[d - 1] : '';
            const count = d > 0 ? named[d - 1] : 0;
            if (f.kind === 'code') {
              contexts.push(before);
              named.push(count);
            } else {
              contexts.push(count === 0 ? f.name : `${before} => ${f.name}`);
              named.push(count + 1);
            }
            ids.push(tables.location(f));
            labels.push(undefined);
          }
          // Calls once (with the first metric); each metric in its own slot.
          const value = new Array<number>(width).fill(0);
          if (slot === 0) value[0] = Math.round(s.calls);
          value[slot + 1] = Math.round(time ? s.value * 1000 : s.value);
          batch.push(
            new Sample({
              locationId: ids.slice().reverse(), // pprof lists the leaf first
              value,
              label: [...threadLabels, new Label({ key: contextKey, str: labelNumber(s.frames, s.frames.length - 1) })],
            }),
          );
          if (batch.length === BATCH) {
            keep(encodePart({ sample: batch }));
            batch = [];
          }
        }
      }
    }
    if (settleSlot !== undefined) {
      const settledKey = strings.dedup('settled');
      const maxKey = strings.dedup('settle_max');
      const countUnit = strings.dedup('count');
      const nsUnit = strings.dedup('nanoseconds');
      for (const t of threads) {
        const name = threadNameOf(t);
        const threadLabels = [
          new Label({ key: threadKey, str: strings.dedup(threadWords(t, mpi)) }),
          ...(mpi ? [new Label({ key: rankKey, str: strings.dedup(String(t.node)) })] : []),
          ...(name ? [new Label({ key: nameKey, str: strings.dedup(name) })] : []),
        ];
        const settle = settleStatsOf(t.userEvents);
        if (settle.size === 0) continue;
        // each region's timer paths (`a => b => region`), to place its settle time at
        const paths = new Map<string, string[][]>();
        (eventsOf ?? ((th, visit) => th.events.forEach(visit)))(t, (e) => {
          if (!e.name.includes('=>')) return;
          const parts = splitPath(e.name);
          const list = paths.get(parts.at(-1)!);
          if (list) list.push(parts);
          else paths.set(parts.at(-1)!, [parts]);
        });
        for (const st of settle.values()) {
          if (st.count === 0) continue;
          const region = displayName(st.region);
          const found = paths.get(region);
          const frames = found && found.length === 1 ? found[0] : [region];
          const value = new Array<number>(width).fill(0);
          value[settleSlot] = Math.round(st.mean * st.count * 1000);
          batch.push(
            new Sample({
              locationId: frames.map((f) => tables.location({ name: f, kind: 'timer' })).reverse(),
              value,
              label: [
                ...threadLabels,
                new Label({ key: contextKey, str: strings.dedup(frames.join(' => ')) }),
                new Label({ key: settledKey, num: st.count, numUnit: countUnit }),
                new Label({ key: maxKey, num: Math.round(st.max * 1000), numUnit: nsUnit }),
              ],
            }),
          );
        }
      }
    }
    if (batch.length > 0) keep(encodePart({ sample: batch }));
    batch = [];
    const sampleType = [
      new ValueType({ type: strings.dedup('calls'), unit: strings.dedup('count') }),
      ...metrics.map((m) => (isTimeMetric(m) ? new ValueType({ type: strings.dedup(m.toLowerCase()), unit: strings.dedup('nanoseconds') }) : new ValueType({ type: strings.dedup(m), unit: strings.dedup('count') }))),
      ...(settleSlot !== undefined ? [new ValueType({ type: strings.dedup('settle_time'), unit: strings.dedup('nanoseconds') })] : []),
    ];
    const start = metaNumber(profile, 'Starting Timestamp');
    const end = metaNumber(profile, 'Ending Timestamp');
    const comment = [strings.dedup(`hyprof export of ${profile.dir}`)];
    yield encodePart({ sampleType });
    for (let i = 0; i < encodedSamples.length; i++) {
      const part = inflateRawSync(encodedSamples[i]);
      encodedSamples[i] = new Uint8Array(0); // handed out: it can go
      yield part;
    }
    yield encodePart({ mapping: tables.mappings });
    yield* tables.encodedLocations();
    yield* tables.encodedFunctions();
    yield* strings.encoded();
    yield encodePart({
      timeNanos: start !== undefined ? BigInt(start) * 1000n : 0,
      durationNanos: start !== undefined && end !== undefined && end >= start ? BigInt(end - start) * 1000n : 0,
      defaultSampleType: sampleType[1].type,
      comment,
    });
  }
}

/** The profile, not yet compressed (tests decode it back). */
export function buildPprof(profile: TauProfile, sel: ExportSelection = {}, eventsOf?: EventsOf): Profile {
  return Profile.decode(Buffer.concat([...pprofPieces(profile, sel, eventsOf)]));
}

export function exportPprof(profile: TauProfile, sel: ExportSelection = {}, eventsOf?: EventsOf): Buffer {
  return gzipSync(Buffer.concat([...pprofPieces(profile, sel, eventsOf)]));
}
