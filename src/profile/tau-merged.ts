/**
 * TAU's merged profile format: one file, `tauprofile.xml`, holding every thread of every rank (what
 * TAU writes with TAU_PROFILE_FORMAT=merged; ParaProf and perfdmf read it as a snapshot profile):
 *   - one `<definitions thread="*">` block: the metrics, and every event and atomic event of the
 *     run with one id each (TAU's unified definitions);
 *   - per thread a `<profile_xml>` block: `<thread>` with its metadata, then `<profile>` with its
 *     `<interval_data>` (id calls subrs, then exclusive and inclusive per metric) and
 *     `<atomic_data>` (id count max min mean sumsqr);
 *   - the statistics over threads TAU precomputes (`<derivedprofile>` total, mean_all,
 *     mean_no_null, stddev_all, stddev_no_null, min_no_null, max_no_null). perfdmf needs them: without
 *     them its summary of sampled lines fails on a merged file.
 * It is written from the per-thread files of the profile in two passes (ids and statistics, then the
 * blocks), so memory holds the run's event names, never its threads. tau-merged-reader.ts reads it.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { escapeXml } from './xml-text.js';
import { formatG16 } from './format-g.js';
import { parseThreadProfile } from './tau-reader.js';
import type { TauThreadProfile } from './tau-model.js';

function xml(s: string): string {
  return escapeXml(s).replace(/"/g, '&quot;');
}

/** Statistics of one value of one event over threads (for the derived profiles). */
interface Acc {
  n: number;
  sum: number;
  sumsq: number;
  min: number;
  max: number;
}

const acc = (): Acc => ({ n: 0, sum: 0, sumsq: 0, min: Infinity, max: -Infinity });
function addTo(a: Acc, v: number): void {
  a.n++;
  a.sum += v;
  a.sumsq += v * v;
  a.min = Math.min(a.min, v);
  a.max = Math.max(a.max, v);
}

/** Per event: calls, subrs, then excl and incl per metric. */
type EventAcc = Acc[];

const DERIVED = ['total', 'mean_all', 'mean_no_null', 'stddev_all', 'stddev_no_null', 'min_no_null', 'max_no_null'] as const;

function derived(kind: (typeof DERIVED)[number], a: Acc, threads: number): number {
  const std = (n: number) => (n > 0 ? Math.sqrt(Math.max(0, a.sumsq / n - (a.sum / n) ** 2)) : 0);
  switch (kind) {
    case 'total':
      return a.sum;
    case 'mean_all':
      return threads > 0 ? a.sum / threads : 0;
    case 'mean_no_null':
      return a.n > 0 ? a.sum / a.n : 0;
    case 'stddev_all':
      return std(threads);
    case 'stddev_no_null':
      return std(a.n);
    case 'min_no_null':
      return a.n > 0 ? a.min : 0;
    case 'max_no_null':
      return a.n > 0 ? a.max : 0;
  }
}

/**
 * Write `out` from the per-thread profile files `threadFiles` (several metrics: one file per metric
 * and thread, in MULTI__<metric> directories). Returns `out`.
 */
export function writeMergedFile(threadFiles: string[], metrics: string[], out: string): string {
  // Group the files by thread, in metric order.
  const groups = new Map<string, string[]>();
  for (const f of threadFiles) {
    const sub = basename(dirname(f));
    const m = metrics.length > 1 ? Math.max(0, metrics.findIndex((x) => sub === `MULTI__${x.replace(/[/\\]/g, '_')}`)) : 0;
    let g = groups.get(basename(f));
    if (!g) groups.set(basename(f), (g = []));
    g[m] = f;
  }
  const ids = (name: string) => {
    const m = /^profile\.(\d+)\.(\d+)\.(\d+)$/.exec(name)!;
    return { node: +m[1], context: +m[2], thread: +m[3] };
  };
  const order = [...groups.keys()].sort((a, b) => {
    const x = ids(a);
    const y = ids(b);
    return x.node - y.node || x.context - y.context || x.thread - y.thread;
  });
  const read = (name: string): TauThreadProfile[] =>
    groups.get(name)!.map((f) => parseThreadProfile(f, readFileSync(f, 'utf8'), ids(name)));

  // Pass A: ids and statistics.
  const events = new Map<string, { id: number; group: string; acc: EventAcc }>();
  const users = new Map<string, number>();
  for (const name of order) {
    const per = read(name);
    const seen = new Map<string, { calls: number; subrs: number; values: number[] }>();
    per.forEach((t, m) => {
      for (const e of t.events) {
        if (e.calls <= 0) continue;
        let v = seen.get(e.name);
        if (!v) seen.set(e.name, (v = { calls: e.calls, subrs: e.subrs, values: new Array(2 * metrics.length).fill(0) }));
        v.values[2 * m] = e.excl;
        v.values[2 * m + 1] = e.incl;
        if (!events.has(e.name)) events.set(e.name, { id: events.size, group: e.group, acc: Array.from({ length: 2 + 2 * metrics.length }, acc) });
      }
    });
    for (const [n, v] of seen) {
      const a = events.get(n)!.acc;
      addTo(a[0], v.calls);
      addTo(a[1], v.subrs);
      v.values.forEach((x, i) => addTo(a[2 + i], x));
    }
    for (const u of per[0].userEvents) if (u.count > 0 && !users.has(u.name)) users.set(u.name, users.size);
  }

  // Pass B: the file.
  const fd = openSync(out, 'w');
  const put = (text: string) => writeSync(fd, text);
  try {
    const defs = ['<profile_xml>', '<definitions thread="*">'];
    metrics.forEach((m, i) => defs.push(`<metric id="${i}"><name>${xml(m)}</name><units>unknown</units></metric>`));
    for (const [n, e] of events) defs.push(`<event id="${e.id}"><name>${xml(n)}</name><group>${xml(e.group)}</group></event>`);
    for (const [n, id] of users) defs.push(`<userevent id="${id}"><name>${xml(n)}</name></userevent>`);
    defs.push('</definitions>', '</profile_xml>');
    put(`${defs.join('\n')}\n`);
    const metricList = metrics.map((_, i) => `${i} `).join('');
    for (const name of order) put(formatThreadBlock(read(name), metrics, events, users, metricList));
    for (const kind of DERIVED) {
      const lines = ['<profile_xml>', `<derivedentity id="${kind}">`, '</derivedentity>', `<derivedprofile derivedentity="${kind}">`];
      lines.push(`<derivedinterval_data metrics="${metricList}">`);
      for (const e of events.values()) {
        const v = e.acc.map((a) => formatG16(derived(kind, a, order.length)));
        lines.push(`${e.id} ${v[0]} ${v[1]} ${v.slice(2).join(' ')} `);
      }
      lines.push('</derivedinterval_data>', '</derivedprofile>', '</profile_xml>');
      put(`${lines.join('\n')}\n`);
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

function formatThreadBlock(
  perMetric: TauThreadProfile[],
  metrics: string[],
  events: Map<string, { id: number }>,
  users: Map<string, number>,
  metricList: string,
): string {
  const t = perMetric[0];
  const id = `${t.node}.${t.context}.${t.thread}.0`;
  const out: string[] = ['<profile_xml>', `<thread id="${id}" node="${t.node}" context="${t.context}" thread="${t.thread}">`, '<metadata>'];
  for (const [k, v] of t.metadata) if (k !== 'Metric Name') out.push(`<attribute><name>${xml(k)}</name><value>${xml(v)}</value></attribute>`);
  out.push('</metadata>', '</thread>', `<profile thread="${id}">`, '<name>final</name>', `<interval_data metrics="${metricList}">`);
  const byMetric = perMetric.map((p) => new Map(p.events.map((e) => [e.name, e])));
  const names = new Set(perMetric.flatMap((p) => p.events.filter((e) => e.calls > 0).map((e) => e.name)));
  for (const n of names) {
    const first = byMetric.find((m) => m.has(n))!.get(n)!;
    const values = byMetric.map((m) => `${formatG16(m.get(n)?.excl ?? 0)} ${formatG16(m.get(n)?.incl ?? 0)}`);
    out.push(`${events.get(n)!.id} ${formatG16(first.calls)} ${formatG16(first.subrs)} ${values.join(' ')} `);
  }
  out.push('</interval_data>', '<atomic_data>');
  for (const u of t.userEvents) {
    if (u.count <= 0) continue;
    out.push(`${users.get(u.name)} ${formatG16(u.count)} ${formatG16(u.max)} ${formatG16(u.min)} ${formatG16(u.mean)} ${formatG16(u.sumsqr)}`);
  }
  out.push('</atomic_data>', '</profile>', '</profile_xml>');
  return `${out.join('\n')}\n`;
}
