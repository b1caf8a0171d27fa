/** Unit tests of the report's number formatting and of the sections no TAU reference file exercises. */
import test from 'ava';
import { formatCount, formatPerCall, formatValue, significant, withCommas } from '../src/report/report-format.js';
import { buildReport, parseThreadSelector } from '../src/report/report-data.js';
import { renderReport } from '../src/report/report-text.js';
import { parseThreadProfile } from '../src/profile/tau-reader.js';
import type { TauProfile } from '../src/profile/tau-model.js';

test('msec as pprof prints them: below 1 three significant digits, above truncated with commas', (t) => {
  t.is(formatValue(255, 1000), '0.255');
  t.is(formatValue(37, 1000), '0.037');
  t.is(formatValue(270, 1000), '0.27');
  t.is(formatValue(0, 1000), '0');
  t.is(formatValue(531992, 1000), '531');
  t.is(formatValue(1005, 1000), '1');
  t.is(formatValue(2707486, 1000), '2,707');
  t.is(formatValue(1234567890, 1000), '1,234,567');
  t.is(withCommas(-1234), '-1,234');
  t.is(significant(0.0004567), '0.000457');
});

test('counts and per-call values', (t) => {
  t.is(formatCount(2481), '2481');
  t.is(formatCount(0.5), '0.5');
  t.is(formatCount(1291.5), '1291.5');
  t.is(formatPerCall(2707486, 1), '2707486');
  t.is(formatPerCall(92403, 2481), '37');
  t.is(formatPerCall(5, 0), '0');
});

test('thread selectors', (t) => {
  t.deepEqual(parseThreadSelector('3'), { kind: 'thread', thread: 3 });
  t.deepEqual(parseThreadSelector('1,0,2'), { kind: 'nct', node: 1, context: 0, thread: 2 });
  t.deepEqual(parseThreadSelector('all'), { kind: 'all' });
  t.deepEqual(parseThreadSelector('mean'), { kind: 'mean' });
  const e = t.throws(() => parseThreadSelector('1,2'));
  t.regex(e!.message, /'1,2' is not a thread/);
});

const META =
  '<metadata><attribute><name>Metric Name</name><value>TIME</value></attribute>' +
  '<attribute><name>hyprof dropped samples: in tool</name><value>3</value></attribute>' +
  '<attribute><name>hyprof dropped samples: table full</name><value>2</value></attribute>' +
  '<attribute><name>TAU_EBS_SAMPLES_TAKEN_0</name><value>120</value></attribute></metadata>';

/** A hyprof-style file with user events and hyprof's drop reasons (values chosen to check the statistics). */
const FILE = [
  '3 templated_functions_MULTI_TIME',
  `# Name Calls Subrs Excl Incl ProfileCalls # ${META}`,
  '".TAU application" 1 1 1000 101000 0 GROUP="TAU_UTILITY" ',
  '"compute" 2 0 100000 100000 0 GROUP="TAU_USER" ',
  '"[CONTEXT] compute" 100 0 0 100000 0 GROUP="TAU_SAMPLE_CONTEXT" ',
  '0 aggregates',
  '2 userevents',
  '# eventname numevents max min mean sumsqr',
  '"message size" 4 4 1 2.5 30',
  '"bytes read" 1 4096 4096 4096 16777216',
  '',
].join('\n');

function profile(): TauProfile {
  const thread = parseThreadProfile('profile.0.0.0', FILE, { node: 0, context: 0, thread: 0 });
  return { dir: 'mem', metrics: ['TIME'], threads: [[thread]] };
}

test('user events: count, max, min, mean and standard deviation', (t) => {
  const r = buildReport(profile());
  const size = r.threads[0].userEvents.find((u) => u.name === 'message size')!;
  t.is(size.count, 4);
  t.is(size.mean, 2.5);
  // values 1..4: sumsqr 30, variance 30/4 - 2.5² = 1.25
  t.true(Math.abs(size.std - Math.sqrt(1.25)) < 1e-12);
  const text = renderReport(r);
  t.regex(text, /USER EVENTS:\n-+\nNumSamples   MaxValue   MinValue  MeanValue  Std\. Dev\.  Event Name\n-+\n/);
  t.regex(text, /\n +4 +4 +1 +2\.5 +1\.11803  message size\n/);
  t.regex(text, /\n +1 +4096 +4096 +4096 +0  bytes read\n/);
});

test('hyprof drop reasons are listed by reason, with samples taken', (t) => {
  const text = renderReport(buildReport(profile()));
  t.regex(text, /Samples: 120 taken, 5 dropped \(in tool: 3, table full: 2\)/);
  t.notRegex(text, /\[CONTEXT\] compute\n.*#Samples/, 'a context without sampled lines has no hot-lines block');
  t.notRegex(text.split('Samples:')[0], / {2}\[CONTEXT\]/);
});

test('--metric names a metric the profile lacks: the error lists what it has', (t) => {
  const e = t.throws(() => buildReport(profile(), { metric: 'PAPI_TOT_CYC' }));
  t.is(e!.message, '--metric PAPI_TOT_CYC: not in this profile (it has TIME)');
});

test('a counter metric is printed in counts, not msec', (t) => {
  const text = FILE.replace('TIME</value>', 'PAPI_TOT_CYC</value>').replace('_MULTI_TIME', '_MULTI_PAPI_TOT_CYC');
  const thread = parseThreadProfile('profile.0.0.0', text, { node: 0, context: 0, thread: 0 });
  const r = buildReport({ dir: 'mem', metrics: ['PAPI_TOT_CYC'], threads: [[thread]] });
  t.is(r.unit, 'counts');
  const out = renderReport(r);
  t.regex(out, /\n +counts +total counts +counts\/call\n/);
  t.regex(out, /\n 99\.0 +100,000 +100,000 +2 +0 +50000 compute\n/);
});
