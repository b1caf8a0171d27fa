/**
 * `hyprof export --format chrome` from a trace: Chrome's trace event format (the JSON object form)
 * with the trace's own times, checked against OTF2's reader (otf2-print) and against what Chrome's
 * importer (chrome://tracing, Perfetto's JSON importer) requires: known phases and fields, complete
 * events nested per thread, every flow's start and end bound to a slice on their threads.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof } from './helpers/native.js';
import { otf2Missing, otf2PrintEvents, writeArchive } from './helpers/otf2.js';

const missing = otf2Missing();
if (missing) console.log(`trace tests skipped: ${missing}`);
const maybe = missing ? test.skip : test;

interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: number;
  bp?: string;
  s?: string;
  args?: Record<string, unknown>;
}

maybe('the chrome export holds every region, message, sample and task resume of the trace, with its times, in a shape Chrome imports', async (t) => {
  const dir = writeArchive('run');
  const out = join(dir, 'trace.json');
  const r = await hyprof(['export', dir, '--format', 'chrome', '-o', out]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stderr, '');
  const doc = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: TraceEvent[]; displayTimeUnit: string };
  t.is(doc.displayTimeUnit, 'ns');
  const evs = doc.traceEvents;
  // Shape: the fields each phase needs, of the types the importer reads.
  for (const e of evs) {
    t.true(['X', 'M', 'i', 's', 'f'].includes(e.ph), e.ph);
    t.is(typeof e.name, 'string');
    t.true(Number.isInteger(e.pid) && Number.isInteger(e.tid));
    if (e.ph !== 'M') t.true(typeof e.ts === 'number' && e.ts >= 0);
    if (e.ph === 'X') t.true(typeof e.dur === 'number' && e.dur >= 0);
    if (e.ph === 'M' && e.name === 'process_sort_index') t.is(typeof e.args?.sort_index, 'number');
    else if (e.ph === 'M') t.is(typeof e.args?.name, 'string');
    if (e.ph === 's' || e.ph === 'f') t.true(Number.isInteger(e.id));
    if (e.ph === 'i') t.is(e.s, 't');
  }
  // Counts against OTF2's own reader.
  const printed = otf2PrintEvents(dir);
  const count = (ph: string, cat?: string) => evs.filter((e) => e.ph === ph && (cat === undefined || e.cat === cat)).length;
  t.is(count('X'), printed.filter((e) => e.kind === 'ENTER').length);
  t.is(count('i'), printed.filter((e) => e.kind === 'CALLING_CONTEXT_SAMPLE').length);
  const sends = printed.filter((e) => e.kind === 'MPI_SEND' || e.kind === 'MPI_ISEND').length;
  t.is(count('s', 'MPI'), sends);
  t.is(count('f', 'MPI'), sends);
  t.is(count('s', 'task'), 1, 'task 1 is resumed once');
  // Times: the trace's own, in µs: the first Enter of each location at its OTF2 timestamp / 1000.
  const names = new Map(evs.filter((e) => e.name === 'process_name').map((e) => [e.pid, (e.args as { name: string }).name]));
  t.deepEqual([...names.values()], ['rank 0', 'rank 1', 'rank 2', 'rank 3']);
  const firstEnter = printed.find((e) => e.kind === 'ENTER' && e.location === 65536)!;
  const firstX = evs.find((e) => e.ph === 'X' && e.pid === 1)!;
  t.is(firstX.ts, firstEnter.time / 1000);
  t.is(firstX.name, 'main');
  // Complete events nest per thread (the importer's rule for X slices on one thread).
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of evs.filter((x) => x.ph === 'X')) {
    const k = `${e.pid}/${e.tid}`;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k)!.push(e);
  }
  t.is(byThread.size, 6);
  for (const [k, list] of byThread) {
    list.sort((a, b) => a.ts! - b.ts! || b.dur! - a.dur!);
    const stack: number[] = [];
    for (const e of list) {
      while (stack.length && stack[stack.length - 1] <= e.ts!) stack.pop();
      if (stack.length) t.true(e.ts! + e.dur! <= stack[stack.length - 1] + 1e-6, `${k}: ${e.name} at ${e.ts} ends outside its parent`);
      stack.push(e.ts! + e.dur!);
    }
  }
  // Flows: each id once as s and once as f, the end not before the start, and each bound to a slice
  // of its thread enclosing it (binding point "e" for the end: the enclosing slice).
  const enclosing = (e: TraceEvent) => (byThread.get(`${e.pid}/${e.tid}`) ?? []).some((x) => x.ts! <= e.ts! && e.ts! <= x.ts! + x.dur!);
  const starts = new Map(evs.filter((e) => e.ph === 's').map((e) => [e.id!, e]));
  for (const f of evs.filter((e) => e.ph === 'f')) {
    const s = starts.get(f.id!);
    t.truthy(s, `flow ${f.id}`);
    t.is(f.bp, 'e');
    t.true(f.ts! >= s!.ts!);
    t.true(enclosing(s!) && enclosing(f), `flow ${f.id} bound to slices`);
  }
  // The late sender's message: rank 0 → rank 1, tag 7, 4096 bytes, ending in rank 1's MPI_Recv.
  const late = evs.filter((e) => e.ph === 'f' && e.cat === 'MPI' && e.pid === 1 && (e.args as { tag: number }).tag === 7);
  t.is(late.length, 3);
  t.true(late.every((e) => starts.get(e.id!)!.pid === 0 && (e.args as { bytes: number }).bytes === 4096));
  // Parameters as args of their specialisation's slice.
  const param = evs.find((e) => e.ph === 'X' && e.name === 'solve  [ <n> = <1024> ]  ');
  t.deepEqual(param?.args, { 'param:n': 1024 });
});
