/**
 * Which threads of a Node program are measured (docs/node.md, "Threads"): by default the main thread
 * and each worker thread, which run JavaScript; V8's and libuv's helper threads get no sampling timer
 * (the process's POSIX timers are counted while it runs) and no thread profile. HYPROF_NODE_THREADS=all
 * measures every thread; a bad value is named and the default used.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { TauThreadProfile } from '../src/profile/tau-model.js';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';

const app = join(testNativeDir, 'node_threads.mjs');

async function runApp(prefix: string, env: Record<string, string | undefined>) {
  const out = join(tmpDir(prefix), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, app], { env: { NODE_OPTIONS: undefined, ...env } });
  const m = /^threads (\d+) timers (n\/a|(\d+) main (true|false))$/m.exec(r.stdout);
  const threads = readTauProfileDir(out).threads[0];
  return {
    r,
    threads,
    osThreads: Number(m?.[1] ?? 0),
    // the sampling timers while the worker ran; null where the kernel has no /proc/self/timers
    timers: m?.[3] !== undefined ? { count: Number(m[3]), main: m[4] === 'true' } : null,
  };
}

const meta = (t: TauThreadProfile, key: string) => t.metadata.find(([k]) => k === key)?.[1];
const name = (t: TauThreadProfile) => meta(t, 'Thread Name');
const sampled = (t: TauThreadProfile, fn: string) => t.events.some((e) => e.name.startsWith(`[SAMPLE] ${fn} [{${app}}`) && e.calls > 0);

test('by default the main thread and the worker are sampled, and no helper thread is', async (t) => {
  const { r, threads, osThreads, timers } = await runApp('node-threads-js', {});
  t.is(r.code, 0, r.stderr);
  t.true(osThreads >= 5, `the process had ${osThreads} threads: node's helper threads are expected`);
  if (timers) t.deepEqual(timers, { count: 2, main: true }, 'one sampling timer on the main thread, one on the worker');
  else t.log('this kernel has no /proc/self/timers: the timers are not counted, only the profiles');
  t.deepEqual(
    threads.map((x) => x.thread),
    [0, 1],
    'thread profiles: the main thread and the worker, numbered without gaps',
  );
  const [main, worker] = threads;
  t.is(meta(main, 'HYPROF_NODE_THREADS'), 'js', 'the setting in force is in the metadata');
  t.true(sampled(main, 'spinMain'), 'the main thread is sampled in spinMain');
  t.is(name(worker), 'worker 1');
  t.true(sampled(worker, 'spinWorker'), 'the worker is sampled in spinWorker');
  t.false(sampled(main, 'spinWorker'));
});

test('HYPROF_NODE_THREADS=all samples every thread, the worker too', async (t) => {
  const { r, threads, osThreads, timers } = await runApp('node-threads-all', { HYPROF_NODE_THREADS: 'all' });
  t.is(r.code, 0, r.stderr);
  if (timers) t.true(timers.count >= osThreads - 1 && timers.main, `${timers.count} timers for ${osThreads} threads`);
  else t.log('this kernel has no /proc/self/timers: the timers are not counted, only the profiles');
  t.true(threads.length >= 5, `${threads.length} thread profiles`);
  t.is(meta(threads[0], 'HYPROF_NODE_THREADS'), 'all');
  const worker = threads.find((x) => name(x) === 'worker 1');
  t.truthy(worker, 'the worker thread is named');
  t.true(sampled(worker!, 'spinWorker'), 'the worker is sampled in spinWorker');
});

test('a bad HYPROF_NODE_THREADS is named, and the default (js) used', async (t) => {
  const { r, threads, timers } = await runApp('node-threads-bad', { HYPROF_NODE_THREADS: 'helpers' });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /hyprof: HYPROF_NODE_THREADS=helpers is not one of js, all; using js/);
  if (timers) t.is(timers.count, 2);
  else t.log('this kernel has no /proc/self/timers: the timers are not counted, only the profiles');
  t.is(threads.length, 2);
});
