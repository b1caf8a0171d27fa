/**
 * `hyprof report` on the profiles TAU itself wrote (shared/reference/tau): the flat table must match
 * what TAU's pprof printed for the same file, row for row, with `--units ms` (pprof's msec columns);
 * without it the columns take the unit their largest value reads best in.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, repoRoot, tauReferenceDir } from './helpers/native.js';
import type { Report } from '../src/report/report-data.js';

const REF = tauReferenceDir;
const refDirs = existsSync(REF) ? readdirSync(REF).filter((d) => existsSync(join(REF, d, 'profile.0.0.0'))) : [];

/** Rows of the first thread table of a pprof-style text (between the second rule and a blank line). */
function tableRows(text: string): string[] {
  const lines = text.split('\n');
  const rules = lines.flatMap((l, i) => (/^-{80,}$/.test(l) ? [i] : []));
  const rows: string[] = [];
  for (let i = rules[1] + 1; i < lines.length && lines[i].trim() !== '' && !/^-{80,}$/.test(lines[i]); i++) {
    rows.push(lines[i].replace(/\s+$/, ''));
  }
  return rows;
}

/** pprof rows of flat timers only (hyprof's main table leaves paths and sample nodes to other sections). */
function pprofTimerRows(dir: string): string[] {
  return tableRows(readFileSync(join(REF, dir, 'pprof.txt'), 'utf8')).filter(
    (r) => !/ => |\[SAMPLE\]|\[CONTEXT\]|\[UNWIND\]/.test(r),
  );
}

test('the reference profiles are present', (t) => {
  t.true(refDirs.length >= 18, `reference directories under ${REF}`);
});

for (const dir of refDirs) {
  test(`report reads ${dir}`, async (t) => {
    const r = await hyprof(['report', join(REF, dir), '--units', 'ms']);
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /NODE 0;CONTEXT 0;THREAD 0:/);
    t.regex(r.stdout, /\.TAU application/);
    t.is(r.stderr, '');
  });
  if (existsSync(join(REF, dir, 'pprof.txt'))) {
    test(`report --sort incl matches TAU pprof row for row: ${dir}`, async (t) => {
      const r = await hyprof(['report', join(REF, dir), '--sort', 'incl', '--units', 'ms']);
      t.is(r.code, 0, r.stderr);
      const expected = pprofTimerRows(dir);
      t.true(expected.length >= 2);
      t.deepEqual(tableRows(r.stdout), expected);
    });
  }
}

test('probes: main is 2,707 msec inclusive with 5 subroutines', async (t) => {
  const r = await hyprof(['report', join(REF, 'probes'), '--units', 'ms']);
  t.is(r.code, 0, r.stderr);
  const main = tableRows(r.stdout).find((l) => l.endsWith(' main'));
  t.truthy(main);
  t.deepEqual(main!.trim().split(/\s+/), ['100.0', '0.124', '2,707', '1', '5', '2707231', 'main']);
});

test('default order is by exclusive time, largest first', async (t) => {
  const r = await hyprof(['report', join(REF, 'probes'), '--json']);
  t.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  const excl = report.threads[0].rows.map((x) => x.excl);
  t.deepEqual(excl, [...excl].sort((a, b) => b - a));
  t.is(report.threads[0].rows[0].name, 'Iteration 2');
  const text = await hyprof(['report', join(REF, 'probes'), '--units', 'ms']);
  t.regex(tableRows(text.stdout)[0], /^ 22\.5 +610 +610 +1 +0 +610381 Iteration 2$/);
});

test('--sort calls and --sort name', async (t) => {
  const calls = JSON.parse((await hyprof(['report', join(REF, 'openmp_ompt_full'), '--thread', '0', '--sort', 'calls', '--json'])).stdout) as Report;
  const c = calls.threads[0].rows.map((x) => x.calls);
  t.deepEqual(c, [...c].sort((a, b) => b - a));
  t.is(c[0], 2481);
  const byName = JSON.parse((await hyprof(['report', join(REF, 'probes'), '--sort', 'name', '--json'])).stdout) as Report;
  const names = byName.threads[0].rows.map((x) => x.name);
  t.deepEqual(names, [...names].sort());
  t.is(names[0], '.TAU application');
});

test('--limit keeps the first N rows and says so', async (t) => {
  const r = await hyprof(['report', join(REF, 'probes'), '--limit', '3', '--units', 'ms']);
  t.is(r.code, 0, r.stderr);
  t.is(tableRows(r.stdout).length, 4);
  t.regex(r.stdout, /\(3 of 12 events shown; --limit\)/);
});

test('two threads: each thread, then the mean; --thread picks one', async (t) => {
  const all = await hyprof(['report', join(REF, 'openmp_ompt_full'), '--units', 'ms']);
  t.is(all.code, 0, all.stderr);
  t.regex(all.stdout, /NODE 0;CONTEXT 0;THREAD 0:[\s\S]*NODE 0;CONTEXT 0;THREAD 1:[\s\S]*FUNCTION SUMMARY \(mean\):/);

  const one = await hyprof(['report', join(REF, 'openmp_ompt_full'), '--thread', '1', '--units', 'ms']);
  t.is(one.code, 0, one.stderr);
  t.regex(one.stdout, /THREAD 1:/);
  t.notRegex(one.stdout, /THREAD 0:|FUNCTION SUMMARY/);
  t.regex(one.stdout, /OpenMP_Thread_Type_ompt_thread_worker/);

  const nct = await hyprof(['report', join(REF, 'openmp_ompt_full'), '--thread', '0,0,0', '--units', 'ms']);
  t.regex(nct.stdout, /THREAD 0:/);
  t.notRegex(nct.stdout, /THREAD 1:/);

  const mean = JSON.parse((await hyprof(['report', join(REF, 'openmp_ompt_full'), '--thread', 'mean', '--json'])).stdout) as Report;
  t.is(mean.threads.length, 0);
  const task = mean.mean!.rows.find((x) => x.name.startsWith('OpenMP_Task fib [{/home/user/tau-example/omp_ref.c} {7, 0}]'));
  // (2481 calls on thread 0 + 1699 on thread 1) / 2 threads
  t.is(task?.calls, 2090);
});

test('--thread naming a thread that is not there is an error naming the threads that are', async (t) => {
  const r = await hyprof(['report', join(REF, 'openmp_ompt_full'), '--thread', '7', '--units', 'ms']);
  t.is(r.code, 2);
  t.is(r.stdout, '');
  t.is(r.stderr, 'hyprof: --thread 7: no such thread (the profile has 0, 1)\n');
  const bad = await hyprof(['report', join(REF, 'probes'), '--thread', 'x', '--units', 'ms']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /^hyprof: --thread: 'x' is not a thread/);
});

test('--json carries the same numbers as the table', async (t) => {
  const text = await hyprof(['report', join(REF, 'hybrid'), '--units', 'ms']);
  const json = await hyprof(['report', join(REF, 'hybrid'), '--json']);
  t.is(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout) as Report;
  t.is(report.metric, 'TIME');
  t.is(report.unit, 'msec');
  t.is(report.threads.length, 1);
  t.is(report.mean, undefined);
  const rows = tableRows(text.stdout);
  t.is(rows.length, report.threads[0].rows.length);
  for (const [i, row] of report.threads[0].rows.entries()) {
    t.true(rows[i].endsWith(` ${row.name}`), rows[i]);
    t.is(rows[i].trim().split(/\s+/)[3], String(row.calls));
  }
  const main = report.threads[0].rows.find((x) => x.name === 'main')!;
  t.is(main.incl, 2361218);
  t.is(main.subrs, 5);
});

test('hot lines per context come from the [CONTEXT] => [SAMPLE] paths', async (t) => {
  const r = await hyprof(['report', join(REF, 'hybrid'), '--json']);
  const report = JSON.parse(r.stdout) as Report;
  const it3 = report.threads[0].hotLines.find((c) => c.context === 'Iteration 3')!;
  t.is(it3.samples, 404);
  t.is(it3.lines[0].name, 'multiply [{/home/user/tau-example/matmult.c} {13}]');
  t.is(it3.lines[0].samples, 173);
  const text = await hyprof(['report', join(REF, 'hybrid'), '--units', 'ms']);
  t.regex(text.stdout, /Hot lines per context/);
  t.regex(text.stdout, /\[CONTEXT\] Iteration 3: 404 samples, 558 msec\n.*\n +44\.\d +247 +173  multiply \[\{\/home\/user\/tau-example\/matmult\.c\} \{13\}\]/);
});

test('sample drops per thread come from TAU_EBS_SAMPLES_* metadata', async (t) => {
  const r = await hyprof(['report', join(REF, 'openmp_ompt_full'), '--units', 'ms']);
  t.regex(r.stdout, /THREAD 0:[\s\S]*Samples: 230 taken, 28 dropped \(in tool: 28\)[\s\S]*THREAD 1:/);
  t.regex(r.stdout, /THREAD 1:[\s\S]*Samples: 178 taken, 23 dropped/);
  t.regex(r.stdout, /Samples \(all threads\): 408 taken, 51 dropped/);
});

/** The tree section as (depth, name, numbers) entries: 37 columns of numbers, then two spaces per level. */
function treeOf(text: string): Array<{ depth: number; name: string; cols: string[] }> {
  const start = text.indexOf('Event paths');
  const lines = text.slice(start).split('\n').slice(1);
  const out = [];
  for (const l of lines) {
    if (l.trim() === '') break;
    if (!/^ +[\d,.]+ +[\d,.]+ +[\d.]+  /.test(l)) continue;
    const rest = l.slice(37);
    const name = rest.trimStart();
    out.push({ depth: (rest.length - name.length) / 2, name, cols: l.slice(0, 37).trim().split(/ +/) });
  }
  return out;
}

test('--callpath prints the event-path tree with contexts, samples and unwound chains', async (t) => {
  const r = await hyprof(['report', join(REF, 'probes_callpath'), '--callpath', '--units', 'ms']);
  t.is(r.code, 0, r.stderr);
  const tree = treeOf(r.stdout);
  t.deepEqual(tree.slice(0, 2), [
    { depth: 0, name: '.TAU application', cols: ['1,830', '0.251', '1'] },
    { depth: 1, name: 'main', cols: ['1,830', '0.144', '1'] },
  ]);
  // TAU recorded paths of depth 2: main's children hang under a second root "main".
  const main = tree.findIndex((n, i) => i > 1 && n.name === 'main' && n.depth === 0);
  t.true(main > 0);
  t.deepEqual(tree.slice(main + 1).map((n) => [n.depth, n.name.replace(/\d/, 'N')]), Array(5).fill([1, 'Iteration N']));
  t.deepEqual(tree[main + 1], { depth: 1, name: 'Iteration 0', cols: ['481', '481', '1'] });

  const u = await hyprof(['report', join(REF, 'hybrid_callpath_unwind'), '--callpath', '--units', 'ms']);
  const ut = treeOf(u.stdout);
  const it1 = ut.findIndex((n) => n.name === 'Iteration 1');
  t.true(it1 >= 0);
  t.is(ut[it1 + 1].name, '[CONTEXT] Iteration 1');
  t.is(ut[it1 + 1].depth, ut[it1].depth + 1);
  t.deepEqual(ut[it1 + 1].cols, ['713', '0', '417']);
  t.true(ut[it1 + 2].name.startsWith('[UNWIND] '));
  t.is(ut[it1 + 2].depth, ut[it1].depth + 2);
  t.true(ut.some((n) => n.name === '[SAMPLE] multiply [{/home/user/tau-example/matmult.c} {13}]' && n.depth > ut[it1].depth + 2));

  const flat = await hyprof(['report', join(REF, 'probes'), '--callpath', '--units', 'ms']);
  t.regex(flat.stdout, /Event paths[\s\S]*none in this profile/);
});

test('units: chosen for the largest value, --units forces one, a bad unit is refused', async (t) => {
  // probes: main is 2,707 msec inclusive, so the columns read in seconds.
  const auto = await hyprof(['report', join(REF, 'probes')]);
  t.is(auto.code, 0, auto.stderr);
  t.regex(auto.stdout, /^ +sec +total sec +usec\/call$/m);
  t.regex(auto.stdout, /^100\.0 +0\.000124 +2\.707 +1 +5 +\d+ main$/m);
  const ms = await hyprof(['report', join(REF, 'probes'), '--units', 'ms']);
  t.regex(ms.stdout, /^ +msec +total msec +usec\/call$/m);
  t.regex(ms.stdout, /^100\.0 +0\.124 +2,707 +1 +5 +\d+ main$/m);
  const bad = await hyprof(['report', join(REF, 'probes'), '--units', 'hours']);
  t.is(bad.code, 2);
  t.is(bad.stderr, 'hyprof: --units hours: not a unit; use auto, ns, us, ms, s\n');
});
