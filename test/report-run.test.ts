/**
 * `hyprof report` on a profile hyprof itself wrote: a real program (two threads, timers, a user
 * event) run under `hyprof run`, then reported as text and JSON.
 */
import test from 'ava';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, libPath, tmpDir } from './helpers/native.js';
import type { Report } from '../src/report/report-data.js';

const PROGRAM = `
#include <hyprof.h>
#include <pthread.h>
static volatile double sink;
static void spin(long n) { double s = 0; for (long i = 1; i <= n; i++) s += 1.0 / (double)i; sink = s; }
static void *worker(void *a) {
  hyprof_event_t e = hyprof_event("worker", 0);
  hyprof_start(e); spin(20000000); hyprof_stop(e);
  return a;
}
int main(void) {
  hyprof_user_event_t u = hyprof_user_event("chunk size");
  for (int i = 1; i <= 4; i++) hyprof_user_event_trigger(u, i);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  hyprof_event_t e = hyprof_event("compute", 0);
  for (int i = 0; i < 2; i++) { hyprof_start(e); spin(15000000); hyprof_stop(e); }
  pthread_join(t, 0);
  return 0;
}
`;

let profileDir = '';
test.before(async () => {
  if (!existsSync(libPath)) return;
  const dir = tmpDir('report-run');
  writeFileSync(join(dir, 'app.c'), PROGRAM);
  const program = compileC('app', [join(dir, 'app.c')], { outDir: dir });
  profileDir = join(dir, 'prof');
  const r = await hyprof(['run', '--dir', profileDir, '--', program]);
  if (r.code !== 0) throw new Error(`hyprof run failed:\n${r.stderr}`);
});

test('timers, threads, user events and sample counts of a real run', async (t) => {
  if (!profileDir) return t.fail(`the native runtime is not built: ${libPath}`);
  const r = await hyprof(['report', profileDir, '--json']);
  t.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  t.is(report.threads.length, 2);
  const [main, worker] = report.threads;
  t.is(main.rows.find((x) => x.name === 'compute')?.calls, 2);
  t.is(worker.rows.find((x) => x.name === 'worker')?.calls, 1);
  t.is(main.rows.find((x) => x.name === '.TAU application')?.percent, 100);
  const chunk = main.userEvents.find((u) => u.name === 'chunk size')!;
  t.like(chunk, { count: 4, max: 4, min: 1, mean: 2.5 });
  t.true(Math.abs(chunk.std - Math.sqrt(1.25)) < 1e-9);
  // Each thread reports its own samples; the mean section their sum.
  t.true(main.samplesTaken! > 0 && worker.samplesTaken! > 0);
  t.is(report.mean!.samplesTaken, main.samplesTaken! + worker.samplesTaken!);
  t.true(main.drops.length > 0, 'hyprof writes every drop reason, zeros included');
  const ctx = main.hotLines.find((c) => c.context === 'compute')!;
  t.truthy(ctx);
  t.regex(ctx.lines[0].name, /^spin \[\{.*app\.c\} \{\d+\}\]$/);
  t.true(ctx.lines[0].percent > 50);
});

test('the text report and the event-path tree of a real run', async (t) => {
  if (!profileDir) return t.fail(`the native runtime is not built: ${libPath}`);
  const r = await hyprof(['report', profileDir, '--callpath']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /NODE 0;CONTEXT 0;THREAD 0:[\s\S]*NODE 0;CONTEXT 0;THREAD 1:[\s\S]*FUNCTION SUMMARY \(mean\):/);
  t.regex(r.stdout, /\n +[\d,.]+ +[\d,.]+ +2 {4}compute\n +[\d,.]+ +0 +\d+ {6}\[CONTEXT\] compute\n/);
  t.regex(r.stdout, /\[SAMPLE\] spin \[\{.*app\.c\} \{\d+\}\]/);
  t.regex(r.stdout, /Hot lines per context[\s\S]*\[CONTEXT\] compute: \d+ samples/);
  t.regex(r.stdout, /USER EVENTS:\n-+\nNumSamples.*\n-+\n +4 +4 +1 +2\.5 +1\.11803  chunk size\n/);
  t.regex(r.stdout, /Samples: \d+ taken, (none dropped|\d+ dropped \()/);
});
