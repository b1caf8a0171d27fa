/**
 * Google pprof (profile.proto, gzip-compressed) through the pprof-format package, shaped so that
 * pprof's own views work: sampled code becomes real functions (name, source file) at locations with
 * their line numbers, in mappings naming the object file and its build id (from modules.json, when
 * the profile has it), so `pprof -top` ranks functions and `pprof -list f` shows f's lines. hyprof's
 * contexts stay visible: the timer path (phases, parameter values) is the root part of every stack,
 * as functions without a file, and each sample carries `thread` and `context` labels
 * (`pprof -tagfocus`). Every stack of every selected thread is one sample with two values: calls as
 * TAU counts them (samples, for sampled code) and the metric (nanoseconds for time metrics).
 */
import { gzipSync } from 'node:zlib';
import { Function as PFunction, Label, Line, Location, Mapping, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { readModulesFile, type ModuleIndex } from './modules-file.js';
import type { TauProfile } from './tau-model.js';
import { isTimeMetric, selectThreads, stacksOf, threadName, threadTree, type ExportFrame, type ExportSelection } from './export-common.js';

function metaNumber(profile: TauProfile, key: string): number | undefined {
  const v = profile.threads[0]?.[0]?.metadata.find(([k]) => k === key)?.[1];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** Functions, locations and mappings, each created once. */
class Tables {
  readonly functions: PFunction[] = [];
  readonly locations: Location[] = [];
  readonly mappings: Mapping[] = [];
  private readonly functionIds = new Map<string, number>();
  private readonly locationIds = new Map<string, number>();
  private readonly mappingIds = new Map<number, number>();

  constructor(
    private readonly strings: StringTable,
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
    const key = `${name}\u0000${file}\u0000${startLine}`;
    let id = this.functionIds.get(key);
    if (id === undefined) {
      id = this.functions.length + 1;
      const n = this.strings.dedup(name);
      this.functions.push(new PFunction({ id, name: n, systemName: n, filename: this.strings.dedup(file), startLine }));
      this.functionIds.set(key, id);
    }
    return id;
  }

  /** The location of a frame: sampled code at its line, in its module; a timer as a bare function. */
  location(f: ExportFrame): number {
    const file = f.file ?? '';
    const line = f.line ?? 0;
    let module: number | undefined;
    if (f.kind === 'code' && this.modules) {
      const unresolved = /^UNRESOLVED (\/\S+)/.exec(f.name);
      module = unresolved ? this.modules.ofPath(unresolved[1]) : this.modules.ofFunction(f.name, file);
    }
    const key = `${f.kind === 'code' ? 'c' : 't'}\u0000${f.name}\u0000${file}\u0000${line}\u0000${module ?? ''}\u0000${f.startLine ?? 0}`;
    let id = this.locationIds.get(key);
    if (id === undefined) {
      id = this.locations.length + 1;
      const functionId = this.function(f.name, file, f.startLine ?? 0);
      this.locations.push(new Location({ id, mappingId: this.mapping(module), line: [new Line({ functionId, line })] }));
      this.locationIds.set(key, id);
    }
    return id;
  }
}

/** The profile, not yet compressed (tests decode it back). */
export function buildPprof(profile: TauProfile, sel: ExportSelection = {}): Profile {
  const { metric, threads } = selectThreads(profile, sel);
  const strings = new StringTable();
  const time = isTimeMetric(metric);
  const tables = new Tables(strings, readModulesFile(profile.dir));
  const samples: Sample[] = [];
  const threadKey = strings.dedup('thread');
  const contextKey = strings.dedup('context');
  for (const t of threads) {
    const thread = new Label({ key: threadKey, str: strings.dedup(threadName(t)) });
    // The stacks are made first, so the thread's tree (larger than its stacks) is dropped before
    // the samples are built; walking the tree while building them kept both.
    for (const s of stacksOf(threadTree(t))) {
      const context = s.frames.filter((f) => f.kind !== 'code').map((f) => f.name).join(' => ');
      const ids = s.frames.map((f) => tables.location(f)).reverse(); // pprof lists the leaf first
      samples.push(
        new Sample({
          locationId: ids,
          value: [Math.round(s.calls), Math.round(time ? s.value * 1000 : s.value)],
          label: [thread, new Label({ key: contextKey, str: strings.dedup(context) })],
        }),
      );
    }
  }
  const sampleType = [
    new ValueType({ type: strings.dedup('calls'), unit: strings.dedup('count') }),
    new ValueType({ type: strings.dedup(time ? metric.toLowerCase() : metric), unit: strings.dedup(time ? 'nanoseconds' : 'count') }),
  ];
  const start = metaNumber(profile, 'Starting Timestamp');
  const end = metaNumber(profile, 'Ending Timestamp');
  return new Profile({
    sampleType,
    sample: samples,
    mapping: tables.mappings,
    location: tables.locations,
    function: tables.functions,
    stringTable: strings,
    timeNanos: start !== undefined ? BigInt(start) * 1000n : 0,
    durationNanos: start !== undefined && end !== undefined && end >= start ? BigInt(end - start) * 1000n : 0,
    defaultSampleType: sampleType[1].type,
    comment: [strings.dedup(`hyprof export of ${profile.dir}`)],
  });
}

export function exportPprof(profile: TauProfile, sel: ExportSelection = {}): Buffer {
  return gzipSync(buildPprof(profile, sel).encode());
}
