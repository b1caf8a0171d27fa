/**
 * Google pprof (profile.proto, gzip-compressed) through the pprof-format package. Every stack of
 * every selected thread is one sample with two values — calls as TAU counts them (samples, for
 * [SAMPLE] frames) and the metric (nanoseconds for time metrics, else the count) — and a "thread"
 * label, so `pprof -tagfocus` picks threads apart. Source positions of [SAMPLE] / [UNWIND] frames
 * become the functions' file and line.
 */
import { gzipSync } from 'node:zlib';
import { Function as PFunction, Label, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import { sourceOf } from './event-tree.js';
import type { TauProfile } from './tau-model.js';
import { isTimeMetric, selectThreads, stacksOf, threadName, threadTree, type ExportSelection } from './export-common.js';

function metaNumber(profile: TauProfile, key: string): number | undefined {
  const v = profile.threads[0]?.[0]?.metadata.find(([k]) => k === key)?.[1];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** The profile, not yet compressed (tests decode it back). */
export function buildPprof(profile: TauProfile, sel: ExportSelection = {}): Profile {
  const { metric, threads } = selectThreads(profile, sel);
  const strings = new StringTable();
  const time = isTimeMetric(metric);
  const functions: PFunction[] = [];
  const locations: Location[] = [];
  const locationOf = new Map<string, number>();
  const loc = (name: string): number => {
    let id = locationOf.get(name);
    if (id !== undefined) return id;
    id = locations.length + 1;
    const src = sourceOf(name);
    functions.push(
      new PFunction({
        id,
        name: strings.dedup(name),
        systemName: strings.dedup(name),
        filename: strings.dedup(src?.file ?? ''),
        startLine: src?.line ?? 0,
      }),
    );
    locations.push(new Location({ id, line: [new Line({ functionId: id, line: src?.line ?? 0 })] }));
    locationOf.set(name, id);
    return id;
  };
  const samples: Sample[] = [];
  const threadKey = strings.dedup('thread');
  for (const t of threads) {
    const label = new Label({ key: threadKey, str: strings.dedup(threadName(t)) });
    for (const s of stacksOf(threadTree(t))) {
      const ids = s.frames.map((f) => loc(f.name)).reverse(); // pprof lists the leaf first
      samples.push(new Sample({ locationId: ids, value: [Math.round(s.calls), Math.round(time ? s.value * 1000 : s.value)], label: [label] }));
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
    location: locations,
    function: functions,
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
