/** JSON in pieces: the same text as JSON.stringify(value, null, 2), for plain data and for a real report. */
import test from 'ava';
import { join } from 'node:path';
import { jsonPieces } from '../src/base/json-pieces.js';
import { buildReport } from '../src/report/report-data.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { tauReferenceDir } from './helpers/native.js';

const text = (v: unknown, indent = 2): string => [...jsonPieces(v, indent)].join('');

test('plain values come out as JSON.stringify writes them', (t) => {
  const values: unknown[] = [
    null,
    0,
    -0,
    1.5e-7,
    NaN,
    -Infinity,
    'a "quoted" \\ line\nwith \u0001 and é',
    true,
    [],
    {},
    [1, [2, [3, []]], {}],
    { a: 1, b: undefined, c: [undefined, () => 1, null], d: { e: { f: 'g' } }, 'k"ey': 2 },
    { when: new Date(0) },
    [{ x: NaN }, { y: [] }],
  ];
  for (const v of values) t.is(text(v), JSON.stringify(v, null, 2), JSON.stringify(v));
  t.throws(() => text({ big: 1n }), { instanceOf: TypeError });
});

test('a report with its event-path tree, cut into small pieces, is the same text', (t) => {
  const profile = readTauProfileDir(join(tauReferenceDir, 'hybrid_callpath_unwind'));
  const report = buildReport(profile, { callpath: true });
  const pieces = [...jsonPieces(report, 2, 100)];
  t.true(pieces.length > 10);
  t.is(pieces.join(''), JSON.stringify(report, null, 2));
});

test('without indentation it is compact, and nesting deeper than recursion allows is written', (t) => {
  t.is(text({ a: [1, { b: 'c' }], d: undefined }, 0), JSON.stringify({ a: [1, { b: 'c' }] }));
  let deep: unknown = [];
  for (let i = 0; i < 20_000; i++) deep = [deep];
  t.is([...jsonPieces(deep, 0)].join(''), `${'['.repeat(20_001)}${']'.repeat(20_001)}`);
});
