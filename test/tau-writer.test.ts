import test from 'ava';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { formatG16 } from '../src/profile/format-g.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { formatThreadProfile, writeTauProfile } from '../src/profile/tau-writer.js';
import type { TauProfile, TauThreadProfile } from '../src/profile/tau-model.js';
import { compileC, tmpDir } from './helpers/native.js';

test('%.16G formatting: known cases', (t) => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [1, '1'],
    [2707231, '2707231'],
    [0.1, '0.1'],
    [123.456, '123.456'],
    [1e16, '1E+16'],
    [9999999999999999, '1E+16'],
    [1e-5, '1E-05'],
    [0.0001, '0.0001'],
    [0.00012345678901234567, '0.0001234567890123457'],
    [1.5e20, '1.5E+20'],
    [1e100, '1E+100'],
    [5e-324, '4.940656458412465E-324'],
    [1.7976931348623157e308, '1.797693134862316E+308'],
    [2.5, '2.5'],
    [1 / 3, '0.3333333333333333'],
    [1234567.891, '1234567.891'],
    [-3.25, '-3.25'],
  ];
  for (const [v, s] of cases) t.is(formatG16(v), s, String(v));
});

test('%.16G formatting agrees with C printf on many values', (t) => {
  const dir = tmpDir('g16');
  const src = join(dir, 'g.c');
  writeFileSync(
    src,
    '#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) { for (int i = 1; i < c; i++) printf("%.16G\\n", strtod(v[i], 0)); return 0; }\n',
  );
  const exe = compileC('g16', [src], { link: false, outDir: dir });
  const values: number[] = [];
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; i < 400; i++) {
    const mag = Math.floor(rnd() * 60) - 30;
    values.push(rnd() * 10 ** mag);
    values.push(Math.round(rnd() * 10 ** (i % 18)));
    values.push(Math.round(rnd() * 2 ** 53) + 0.5, (Math.floor(rnd() * 1e6) * 2 + 1) / 2 ** 40);
  }
  const args = values.map((v) => v.toPrecision(17));
  const r = spawnSync(exe, args, { encoding: 'utf8' });
  const expected = r.stdout.trim().split('\n');
  t.is(expected.length, values.length);
  const mismatches = args.filter((a, i) => formatG16(Number(a)) !== expected[i]);
  t.deepEqual(mismatches, []);
});

function sampleThread(thread: number): TauThreadProfile {
  return {
    node: 0,
    context: 0,
    thread,
    metric: 'TIME',
    events: [
      { name: '.TAU application', calls: 1, subrs: 1, excl: 12, incl: 2707486, group: 'TAU_UTILITY' },
      { name: 'a <b> & "c"', calls: 3, subrs: 0, excl: 1.5e-7, incl: 1.25e21, group: 'TAU_USER' },
      { name: 'f  [ <n> = <3> ]  ', calls: 2, subrs: 0, excl: 0.1, incl: 0.3, group: 'TAU_PARAM | TAU_USER' },
      // A derived entry (docs/assembly.md): a context the thread entered only below, 0 calls.
      { name: 'entered below', calls: 0, subrs: 2, excl: 0, incl: 0.3, group: 'TAU_USER' },
    ],
    userEvents: [
      { name: 'bytes', count: 4, max: 1e300, min: -2.5, mean: 3.125, sumsqr: 1e-300 },
      { name: 'unused', count: 0, max: 0, min: 0, mean: 0, sumsqr: 0 },
    ],
    metadata: [
      ['Metric Name', 'TIME'],
      ['Command Line', './app --x "<1>" & y\nsecond line'],
      ['tid', String(100 + thread)],
    ],
  };
}

test('writer output follows the format line by line', (t) => {
  const text = formatThreadProfile(sampleThread(0));
  const lines = text.split('\n');
  t.is(lines[0], '4 templated_functions_MULTI_TIME');
  t.true(lines[1].startsWith('# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name</name>'));
  t.true(lines[1].includes('<value>./app --x "&lt;1&gt;" &amp; y second line</value>'));
  t.is(lines[2], '".TAU application" 1 1 12 2707486 0 GROUP="TAU_UTILITY" ');
  t.is(lines[3], `"a <b> & 'c'" 3 0 1.5E-07 1.25E+21 0 GROUP="TAU_USER" `);
  t.is(lines[4], '"f  [ <n> = <3> ]  " 2 0 0.1 0.3 0 GROUP="TAU_PARAM | TAU_USER" ');
  t.is(lines[5], '"entered below" 0 2 0 0.3 0 GROUP="TAU_USER" ');
  t.is(lines[6], '0 aggregates');
  t.is(lines[7], '1 userevents');
  t.is(lines[8], '# eventname numevents max min mean sumsqr');
  t.is(lines[9], '"bytes" 4 1E+300 -2.5 3.125 1E-300');
  t.is(lines[10], '');
  t.is(lines.length, 11);
});

test('writer → reader round trip is exact (one and several metrics)', (t) => {
  const dir = join(tmpDir('tauw'), 'out');
  const one: TauProfile = { dir, metrics: ['TIME'], threads: [[sampleThread(0), sampleThread(1)]] };
  const files = writeTauProfile(one);
  t.deepEqual(files.map((f) => f.slice(dir.length + 1)), ['profile.0.0.0', 'profile.0.0.1']);
  t.deepEqual(readdirSync(dir).sort(), ['profile.0.0.0', 'profile.0.0.1']);
  const back = readTauProfileDir(dir);
  t.deepEqual(back.metrics, ['TIME']);
  const expectThread = (th: TauThreadProfile) => ({
    ...th,
    events: th.events.map((e) => ({ ...e, name: e.name.replace(/"/g, "'") })),
    userEvents: th.userEvents.filter((u) => u.count > 0),
    metadata: th.metadata.map(([k, v]) => [k, v.replace(/\n/g, ' ')]),
  });
  const { file: _file, ...got } = back.threads[0][1] as TauThreadProfile & { file?: string };
  t.deepEqual(got, expectThread(sampleThread(1)));

  const dir2 = join(tmpDir('tauw2'), 'out');
  const t2 = { ...sampleThread(0), metric: 'PAPI_TOT_CYC', metadata: [['Metric Name', 'PAPI_TOT_CYC']] as Array<[string, string]> };
  writeTauProfile({ dir: dir2, metrics: ['TIME', 'PAPI_TOT_CYC'], threads: [[{ ...sampleThread(0) }], [t2]] });
  t.deepEqual(readdirSync(dir2).sort(), ['MULTI__PAPI_TOT_CYC', 'MULTI__TIME']);
  const back2 = readTauProfileDir(dir2);
  t.deepEqual(back2.metrics.sort(), ['PAPI_TOT_CYC', 'TIME']);
  t.is(readFileSync(join(dir2, 'MULTI__PAPI_TOT_CYC', 'profile.0.0.0'), 'utf8').split('\n')[0], '4 templated_functions_MULTI_PAPI_TOT_CYC');
});

test('a failing write leaves no partial output', (t) => {
  const dir = join(tmpDir('tauw3'), 'out');
  const bad = sampleThread(1);
  bad.events[1].incl = -1;
  t.throws(() => writeTauProfile({ dir, metrics: ['TIME'], threads: [[sampleThread(0), bad]] }), {
    message: /profile\.0\.0\.1: incl of "a <b> & 'c'" is -1/,
  });
  t.deepEqual(readdirSync(dir), []);
});

test('profile files of an earlier run in the same directory are removed, other files kept', (t) => {
  const dir = join(tmpDir('tauw4'), 'out');
  writeTauProfile({ dir, metrics: ['TIME', 'CPU_TIME'], threads: [[sampleThread(0), sampleThread(1)], [sampleThread(0), sampleThread(1)]] });
  writeFileSync(join(dir, 'README'), 'mine');
  writeTauProfile({ dir, metrics: ['TIME'], threads: [[sampleThread(0)]] });
  t.deepEqual(readdirSync(dir).sort(), ['README', 'profile.0.0.0']);
  const back = readTauProfileDir(dir);
  t.deepEqual(back.metrics, ['TIME']);
  t.deepEqual(back.threads.map((ts) => ts.length), [1]);
});
