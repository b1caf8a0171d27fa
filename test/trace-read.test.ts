/**
 * The OTF2 reader (native/otf2-read through src/trace/otf2-index.ts) against OTF2's own reader
 * (otf2-print) on archives the OTF2 library wrote, and its refusal of damaged archives: one line
 * naming the file and the place, never a stack trace.
 */
import test from 'ava';
import { readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, tmpDir } from './helpers/native.js';
import { spawnSync } from 'node:child_process';
import { repoRoot } from './helpers/paths.js';
import { otf2Missing, otf2PrintEvents, writeArchive } from './helpers/otf2.js';
import { EV, readTrace } from '../src/trace/otf2-index.js';
import { buildModel } from '../src/trace/trace-model.js';

const missing = otf2Missing();
if (missing) console.log(`trace tests skipped: ${missing}`);
const maybe = missing ? test.skip : test;

maybe('every event otf2-print reads is in the index, per location in time order, with its times', async (t) => {
  const dir = writeArchive('run');
  const index = await readTrace(dir);
  const printed = otf2PrintEvents(dir);
  const offset = index.defs.clock.offset;
  const kinds: Record<string, number> = { ENTER: EV.ENTER, LEAVE: EV.LEAVE, MPI_SEND: EV.SEND, MPI_RECV: EV.RECV, MPI_ISEND: EV.ISEND, MPI_IRECV: EV.IRECV, MPI_COLLECTIVE_END: EV.COLL_END, THREAD_TASK_SWITCH: EV.TASK_SWITCH, CALLING_CONTEXT_SAMPLE: EV.SAMPLE };
  index.defs.locations.forEach((loc, i) => {
    const mine = printed.filter((e) => e.location === Number(loc.id));
    const ev = index.events[i];
    t.is(ev.time.length, mine.length, `location ${loc.name}`);
    mine.forEach((e, j) => {
      t.is(ev.time[j] + offset, e.time);
      if (kinds[e.kind] !== undefined) t.is(ev.kind[j], kinds[e.kind], `${e.kind} at ${j}`);
    });
  });
  const model = buildModel(index);
  t.deepEqual(model.lanes.map((l) => `${l.process} ${l.thread} ${l.rank}`), ['rank 0 thread 0 0', 'rank 1 thread 0 1', 'rank 2 thread 0 2', 'rank 3 thread 0 3', 'rank 0 thread 1 0', 'rank 0 thread 2 0']);
  const enters = printed.filter((e) => e.kind === 'ENTER').length;
  t.is(model.lanes.reduce((n, l) => n + l.count, 0), enters);
  t.is(model.messages.length, printed.filter((e) => e.kind === 'MPI_SEND' || e.kind === 'MPI_ISEND').length);
  for (const m of model.messages) t.true(m.recv.time >= m.send.time);
  const param = model.lanes[0].attrs.values().next().value;
  t.deepEqual(param, { 'param:n': 512 });
});

maybe('a damaged archive is refused with one line naming the file and the place', async (t) => {
  const dir = writeArchive('run');
  // An event file cut short in the middle of an event.
  const evt = join(dir, 'traces', '65536.evt');
  truncateSync(evt, Math.floor(statSync(evt).size / 2) + 3);
  const r = await hyprof(['report', dir, '--trace']);
  t.is(r.code, 1);
  t.regex(r.stderr, /^hyprof: trace refused: .*traces\/65536\.evt: .+\n$/);
  t.notRegex(r.stderr, /\n.+\n/, 'one line');
  // Global definitions that are not OTF2.
  const dir2 = writeArchive('run');
  writeFileSync(join(dir2, 'traces.def'), 'not a definition file\n');
  const r2 = await hyprof(['export', dir2, '--format', 'chrome', '-o', join(dir2, 'out.json')]);
  t.is(r2.code, 1);
  t.regex(r2.stderr, /^hyprof: trace refused: .*traces\.otf2.*\n$/);
  t.notRegex(r2.stderr, /at .*\.js:\d+/, 'no stack trace');
  t.false(readdirSync(dir2).includes('out.json'), 'no partial output');
  // Events the OTF2 library writes without complaint but that do not fit: a Leave of a region that is
  // not the innermost one entered (the third event of location 0; OTF2 counts events from 1).
  const dir3 = writeArchive('misnested');
  const r3 = await hyprof(['report', dir3, '--trace']);
  t.is(r3.code, 1);
  t.is(r3.stderr, `hyprof: trace refused: ${dir3}/traces/0.evt: event 3: Leave of region 0 inside region 1 (not the innermost one entered)\n`);
});

maybe('a run cut short: regions left open are closed at the thread\'s last event and counted, losses the writer recorded are said', async (t) => {
  const dir = writeArchive('cut');
  const r = await hyprof(['report', dir, '--trace']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /NOTE: 2 region\(s\) left open at the end of their thread were closed at its last event/);
  t.regex(r.stdout, /NOTE: rank 0 thread 0: 123 event\(s\) lost when recorded \(disk full\)/);
  const c = await hyprof(['export', dir, '--format', 'chrome', '-o', join(dir, 'c.json')]);
  t.is(c.code, 0);
  t.regex(c.stderr, /hyprof: .*traces\.otf2: 2 region\(s\) left open/);
  t.regex(c.stderr, /123 event\(s\) lost when recorded \(disk full\)/);
});

maybe('the reader program under AddressSanitizer and UBSan: clean on good, cut and damaged archives', async (t) => {
  const exe = join(tmpDir('otf2-read-asan'), 'hyprof-otf2-read');
  const cc = spawnSync('gcc', ['-std=gnu11', '-g', '-O1', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', join(repoRoot, 'native', 'otf2-read', 'otf2_read.c'), '-o', exe, '-lopen-trace-format2'], { encoding: 'utf8' });
  t.is(cc.status, 0, cc.stderr);
  const good = writeArchive('run');
  const cut = writeArchive('cut');
  const bad = writeArchive('misnested');
  const truncated = writeArchive('run');
  const evt = join(truncated, 'traces', '0.evt');
  truncateSync(evt, Math.floor(statSync(evt).size / 3));
  for (const [d, status] of [[good, 0], [cut, 0], [bad, 1], [truncated, 1]] as const) {
    // Leak checks off: a one-shot program leaves its buffers to the process's exit, on refusal too.
    const r = spawnSync(exe, [join(d, 'traces.otf2')], { encoding: 'buffer', maxBuffer: 1 << 28, env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=0' } });
    const err = r.stderr.toString();
    t.is(r.status, status, err);
    t.notRegex(err, /Sanitizer|runtime error/);
    if (status === 1) t.is(err.trim().split('\n').length, 1, err);
  }
});
