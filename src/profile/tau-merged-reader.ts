/**
 * Reads TAU's merged profile format (`tauprofile.xml`, described in tau-merged.ts, which writes it):
 * its metric names, and its threads one at a time as the profile of one metric. tau-reader.ts reads
 * a directory holding one through these.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { TauThreadProfile, TauUserEvent } from './tau-model.js';
import { unescapeXml } from './xml-text.js';

export const MERGED_FILE = 'tauprofile.xml';

/** The lines of a file, read in chunks (a merged file of a large run does not fit in one string). */
function* lines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(1 << 20);
  let rest = '';
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      const text = rest + buf.toString('utf8', 0, n);
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      yield* parts;
    }
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}

/** The metric names of a merged file (its first definitions). */
export function mergedMetrics(path: string): string[] {
  const metrics: string[] = [];
  for (const line of lines(path)) {
    const m = /<metric id="(\d+)">\s*<name>(.*?)<\/name>/.exec(line);
    if (m) metrics[Number(m[1])] = unescapeXml(m[2]);
    if (/<\/definitions>/.test(line) && metrics.length > 0) break;
  }
  return metrics.length > 0 ? metrics : ['TIME'];
}

/**
 * Read a merged file thread by thread, as the profile of metric `m`: onThread gets each thread as
 * it is complete. Reads the layout this module writes and TAU writes (one element or data line per
 * line; definitions per thread or unified).
 */
export function readMergedThreads(path: string, m: number, onThread: (t: TauThreadProfile) => void): void {
  const unified = { events: new Map<number, [string, string]>(), users: new Map<number, string>() };
  let local = unified;
  const byId = new Map<string, { events: Map<number, [string, string]>; users: Map<number, string> }>();
  let t: TauThreadProfile | null = null;
  let section: 'none' | 'metadata' | 'interval' | 'atomic' = 'none';
  let metricPos: number[] = [];
  let metaText = '';
  const metricName = mergedMetrics(path)[m] ?? 'TIME';
  for (const line of lines(path)) {
    let x: RegExpExecArray | null;
    if ((x = /<definitions thread="([^"]*)">/.exec(line))) {
      if (x[1] === '*') local = unified;
      else {
        local = byId.get(x[1]) ?? { events: new Map(), users: new Map() };
        byId.set(x[1], local);
      }
    } else if ((x = /<event id="(\d+)"><name>(.*?)<\/name><group>(.*?)<\/group><\/event>/.exec(line))) {
      local.events.set(Number(x[1]), [unescapeXml(x[2]), unescapeXml(x[3])]);
    } else if ((x = /<userevent id="(\d+)"><name>(.*?)<\/name><\/userevent>/.exec(line))) {
      local.users.set(Number(x[1]), unescapeXml(x[2]));
    } else if ((x = /<thread id="([^"]*)" node="(\d+)" context="(\d+)" thread="(\d+)">/.exec(line))) {
      t = { node: +x[2], context: +x[3], thread: +x[4], metric: metricName, events: [], userEvents: [], metadata: [['Metric Name', metricName]] };
      local = byId.get(x[1]) ?? unified;
    } else if (/<metadata>/.test(line)) {
      section = 'metadata';
      metaText = line;
    } else if (section === 'metadata') {
      metaText += line;
      if (/<\/metadata>/.test(line)) {
        section = 'none';
        const re = /<attribute>\s*<name>([\s\S]*?)<\/name>\s*<value>([\s\S]*?)<\/value>\s*<\/attribute>/g;
        for (let a = re.exec(metaText); a && t; a = re.exec(metaText)) t.metadata.push([unescapeXml(a[1]), unescapeXml(a[2])]);
      }
    } else if ((x = /<profile thread="([^"]*)">/.exec(line))) {
      local = byId.get(x[1]) ?? unified;
    } else if ((x = /<interval_data metrics="([^"]*)">/.exec(line))) {
      section = 'interval';
      metricPos = x[1].trim().split(/\s+/).map(Number);
    } else if (/<\/interval_data>/.test(line)) section = 'none';
    else if (/<atomic_data>/.test(line)) section = 'atomic';
    else if (/<\/atomic_data>/.test(line)) section = 'none';
    else if (/<\/profile_xml>/.test(line)) {
      if (t) onThread(t);
      t = null;
    } else if (section === 'interval' && t) {
      const v = line.trim().split(/\s+/).map(Number);
      const ev = local.events.get(v[0]) ?? unified.events.get(v[0]);
      const k = metricPos.indexOf(m);
      if (!ev || k < 0) continue;
      t.events.push({ name: ev[0], group: ev[1], calls: v[1], subrs: v[2], excl: v[3 + 2 * k], incl: v[4 + 2 * k] });
    } else if (section === 'atomic' && t) {
      const v = line.trim().split(/\s+/).map(Number);
      const name = local.users.get(v[0]) ?? unified.users.get(v[0]);
      if (!name || !(v[1] > 0)) continue;
      const u: TauUserEvent = { name, count: v[1], max: v[2], min: v[3], mean: v[4], sumsqr: v[5] };
      t.userEvents.push(u);
    }
  }
}
