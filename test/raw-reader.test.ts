import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../src/base/errors.js';
import { MAX_CONTEXT_DEPTH, parseRaw, readRawFile } from '../src/samples/raw-reader.js';
import { tmpDir } from './helpers/native.js';
import { assemble, encodeRaw, encodeSections, simpleFixture, type Fixture } from './raw-fixture.js';

function rawError(t: import('ava').ExecutionContext, buf: Buffer, file = 'run.raw'): string {
  const err = t.throws(() => parseRaw(file, buf), { instanceOf: UserError });
  return err?.message ?? '';
}

test('reads a well-formed file completely', (t) => {
  const f: Fixture = {
    ...simpleFixture(),
    attributes: [['Hostname', 'h<&>'], ['TAU_CALLPATH', 'on']],
    userEvents: [[0, 'bytes sent']],
    maps: [{ start: 0x1000n, end: 0x2000n, bias: 0n, path: '/bin/x', buildId: 'abcd' }],
    sampling: { unwind: true, depth: 10 },
  };
  f.threads[0].user = [{ event: 0, count: 3, min: 1, max: 5, sum: 9, sumsqr: 35 }];
  f.threads[0].drops = [['in_tool', 4]];
  f.threads[0].warnings = ['stop of "x" while "y" runs'];
  f.threads[0].open = [0x11n];
  f.threads[0].samples = [{ context: 0x12n, count: 7, values: [7000], pcs: [0x1234n, 0x1500n] }];
  const dir = tmpDir('raw');
  const file = join(dir, 'a.raw');
  writeFileSync(file, encodeRaw(f));
  const p = readRawFile(file);
  t.is(p.file, file);
  t.is(p.info.pid, 4242);
  t.deepEqual(p.info.metrics, ['TIME']);
  t.deepEqual(p.info.attributes, [['Hostname', 'h<&>'], ['TAU_CALLPATH', 'on']]);
  t.is(p.events.length, 3);
  t.is(p.events[0].kind, 3);
  t.is(p.contexts.get(0x12n)?.parent, 0x11n);
  t.is(p.threads.length, 1);
  const th = p.threads[0];
  t.is(th.stats.at(1).incl[0], 1_999_999_000);
  t.is(th.stats.at(1).childCalls, 2);
  t.deepEqual(th.open, [0x11n]);
  t.deepEqual(th.userStats, [{ userEvent: 0, count: 3, min: 1, max: 5, sum: 9, sumsqr: 35 }]);
  t.deepEqual(th.drops, [['in_tool', 4]]);
  t.deepEqual(th.warnings, ['stop of "x" while "y" runs']);
  t.deepEqual(th.samples, [{ context: 0x12n, count: 7, values: [7000], state: 0, pcs: [0x1234n, 0x1500n] }]);
  t.is(p.userEvents.get(0), 'bytes sent');
  t.deepEqual(p.maps, [{ start: 0x1000n, end: 0x2000n, bias: 0n, path: '/bin/x', buildId: 'abcd' }]);
  t.is(p.sampling?.unwindDepth, 10);
});

test('a file that cannot be read names the file', (t) => {
  const err = t.throws(() => readRawFile('/nonexistent/x.raw'), { instanceOf: UserError });
  t.regex(err!.message, /^\/nonexistent\/x\.raw: cannot read the raw file/);
});

test('bad magic', (t) => {
  const buf = encodeRaw(simpleFixture());
  buf.write('HYPROFXX', 0, 'latin1');
  t.is(rawError(t, buf), 'run.raw: offset 0: header: expected the magic "HYPROFRW" (not a hyprof raw file)');
  t.regex(rawError(t, Buffer.from('HY')), /^run\.raw: offset 0: header: expected the magic/);
});

test('unknown version', (t) => {
  const buf = assemble(encodeSections(simpleFixture()), { version: 7 });
  t.is(rawError(t, buf), 'run.raw: offset 8: header: unknown raw format version 7 (this hyprof reads version 1)');
});

test('truncated at several points: every cut is reported with the offset', (t) => {
  const buf = encodeRaw(simpleFixture());
  // Cut inside the header, inside a section header, inside a payload, and just before END.
  const cuts = [10, 14, 20, 30, 40, buf.length - 20, buf.length - 1];
  for (const cut of cuts) {
    const msg = rawError(t, buf.subarray(0, cut));
    t.regex(msg, /^run\.raw: offset \d+: /, `cut at ${cut}`);
    t.true(msg.includes(`file ends at ${cut}`) || msg.includes('cut short'), `cut at ${cut}: ${msg}`);
  }
  t.is(
    rawError(t, buf.subarray(0, 14)),
    'run.raw: offset 12: header: expected 4 bytes for the header flags, file ends at 14',
  );
  t.is(
    rawError(t, buf.subarray(0, 30)),
    'run.raw: offset 24: section header 1: expected 8 bytes for the section length, file ends at 30',
  );
  t.is(
    rawError(t, buf.subarray(0, 40)),
    `run.raw: offset 24: section header 1: section INFO declares ${buf.readUInt32LE(24)} bytes, file ends at 40`,
  );
});

test('a flipped byte is caught by the CRC', (t) => {
  const buf = Buffer.from(encodeRaw(simpleFixture()));
  buf[40] ^= 0x20; // inside the INFO payload (which starts at 32)
  const msg = rawError(t, buf);
  t.regex(msg, /^run\.raw: offset 32: section INFO: CRC mismatch \(expected 0x[0-9a-f]{8}, payload gives 0x[0-9a-f]{8}\): the file is corrupt$/);
});

test('missing END section and wrong END count', (t) => {
  const sections = encodeSections(simpleFixture());
  const noEnd = assemble(sections, { noEnd: true });
  t.is(
    rawError(t, noEnd),
    `run.raw: offset ${noEnd.length}: section header ${sections.length + 1}: expected a section header or the END section (the file was cut short)`,
  );
  const wrong = assemble(sections, { endCount: 2 });
  t.regex(rawError(t, wrong), new RegExp(`^run\\.raw: offset \\d+: section END: END counts 2 sections, the file holds ${sections.length}$`));
});

test('dangling contexts and events are rejected', (t) => {
  const f = simpleFixture();
  f.contexts[2].parent = 0x99n;
  t.regex(rawError(t, encodeRaw(f)), /section CONTEXTS: context 0x12 has parent 0x99, which is not in the table$/);

  const g = simpleFixture();
  g.threads[0].stats.push({ context: 0x77n, calls: 1, incl: [1], excl: [1] });
  t.regex(rawError(t, encodeRaw(g)), /section THREAD: statistic 3 names context 0x77, which is not in the CONTEXTS table$/);

  const h = simpleFixture();
  h.contexts[1].event = 9;
  t.regex(rawError(t, encodeRaw(h)), /section CONTEXTS: context 0x11 names event 9, which does not exist$/);

  const s = simpleFixture();
  s.threads[0].samples = [{ context: 0x55n, count: 1, values: [1], pcs: [1n] }];
  t.regex(rawError(t, encodeRaw(s)), /section SAMPLES: sample 0 names context 0x55, which is not in the CONTEXTS table$/);
});

test('a parent cycle is rejected; deep chains are read in linear time up to a bound', (t) => {
  const f = simpleFixture();
  f.contexts[0].parent = 0x12n; // 0x10 -> 0x12 -> 0x11 -> 0x10
  t.regex(rawError(t, encodeRaw(f)), /section CONTEXTS: context 0x10 is part of a parent cycle$/);

  // 10 chains of 9,000 contexts: each context is walked once (the check was contexts x chain
  // length: 4 * 10^8 steps here).
  const g = simpleFixture();
  let id = 0x1000n;
  for (let chain = 0; chain < 10; chain++) {
    for (let i = 0; i < 9_000; i++, id++) g.contexts.push({ context: id, parent: i === 0 ? 0x12n : id - 1n, event: 2 });
  }
  t.is(parseRaw('chains.raw', encodeRaw(g)).contexts.size, 90_003);

  // Deeper than any runtime nests: refused by name, before anything follows such a path.
  const h = simpleFixture();
  for (let i = 0; i < MAX_CONTEXT_DEPTH; i++) h.contexts.push({ context: 0x1000n + BigInt(i), parent: i === 0 ? 0x12n : 0x1000n + BigInt(i - 1), event: 2 });
  t.regex(rawError(t, encodeRaw(h)), /section CONTEXTS: context 0x[0-9a-f]+ lies 10001 levels deep; at most 10000 are accepted \(the file is corrupt\)$/);
});

test('a corrupt count inside a valid CRC is reported, not allocated', (t) => {
  const sections = encodeSections(simpleFixture());
  const ev = sections.find((s) => s.tag === 2)!;
  ev.payload = Buffer.from(ev.payload);
  ev.payload.writeUInt32LE(0x7fffffff, 0);
  const msg = rawError(t, assemble(sections));
  t.regex(msg, /section EVENTS: 2147483647 events need at least \d+ bytes, section ends at \d+$/);
});

test('a missing required section is named', (t) => {
  const sections = encodeSections(simpleFixture()).filter((s) => s.tag !== 3);
  t.regex(rawError(t, assemble(sections)), /^run\.raw: offset \d+: the file has no CONTEXTS section$/);
});

test('unknown section tags are skipped after their CRC check', (t) => {
  const sections = encodeSections(simpleFixture());
  sections.push({ tag: 99, payload: Buffer.from('future data') });
  const p = parseRaw('x.raw', assemble(sections));
  t.is(p.threads.length, 1);
});

/** simpleFixture with `work` a compiler-instrumented function (kind 5) and a FUNCTIONS section. */
function withFunctions(entries: Array<[number, bigint]>, flags = 0): Buffer {
  const f = simpleFixture();
  f.events[2] = { kind: 5, name: '@0x401136', group: 'TAU_DEFAULT', flags };
  const sections = encodeSections(f);
  const b = Buffer.alloc(4 + entries.length * 12);
  b.writeUInt32LE(entries.length, 0);
  entries.forEach(([e, a], i) => {
    b.writeUInt32LE(e, 4 + i * 12);
    b.writeBigUInt64LE(a, 8 + i * 12);
  });
  sections.push({ tag: 11, payload: b });
  return assemble(sections);
}

test('FUNCTIONS: the code address of each function event, and the throttled flag of EVENTS', (t) => {
  const p = parseRaw('run.raw', withFunctions([[2, 0x401136n]], 1));
  t.deepEqual([...(p.functions ?? new Map())], [[2, 0x401136n]]);
  t.is(p.events[2].kind, 5);
  t.true(p.events[2].throttled);
  t.falsy(p.events[1].throttled);
});

test('FUNCTIONS and event flags that do not hold together are refused with the file and offset', (t) => {
  t.regex(rawError(t, withFunctions([[1, 0x401136n]])), /^run\.raw: offset \d+: section FUNCTIONS: function 0 names event 1, which is not a function event$/);
  t.regex(rawError(t, withFunctions([[9, 0x401136n]])), /^run\.raw: offset \d+: section FUNCTIONS: function 0 names event 9, which does not exist$/);
  t.regex(rawError(t, withFunctions([[2, 0n]])), /^run\.raw: offset \d+: section FUNCTIONS: function 0 \(event 2\) has address 0$/);
  t.regex(rawError(t, withFunctions([[2, 0x10n], [2, 0x20n]])), /^run\.raw: offset \d+: section FUNCTIONS: event 2 has two function addresses$/);
  t.regex(rawError(t, withFunctions([[2, 0x10n]], 6)), /^run\.raw: offset \d+: section EVENTS: event 2 has unknown flags 0x6$/);
  const f = simpleFixture();
  f.events[2] = { kind: 6, name: 'x' };
  t.regex(rawError(t, encodeRaw(f)), /^run\.raw: offset \d+: section EVENTS: event 2 has unknown kind 6$/);
});
