/**
 * What an ended thread keeps: its state is compacted at its end (native/core/thread.c) to what the
 * profile needs. 2,000 short threads under `hyprof run`, with probes only and with sampling: the
 * resident memory they add stays under 10 KB per thread (it was about 20 KB before compaction), the
 * profile counts the ended threads and their memory, and every thread is still in it with its
 * timers and user event - also when flushes run while threads end (400 threads there), and when a timer runs in a
 * thread-exit destructor after the runtime compacted the thread.
 */
import test from 'ava';
import { join } from 'node:path';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

const exe = compileC('ended_threads', ['ended_threads.c'], { cflags: ['-O1', '-g'] });
const THREADS = 2000;
const FIRST_ROUND = 4; // threads started before the first memory reading (ended_threads.c)

function callsOf(th: TauThreadProfile, name: string): number | undefined {
  return th.events.find((e) => displayName(e.name) === name)?.calls;
}

/** `others`: threads of the program that are no workers and end before it (the flusher). */
function checkProfile(t: import('ava').ExecutionContext, dir: string, n: number, others = 0): void {
  const threads = readTauProfileDir(dir).threads[0]!;
  const workers = threads.filter((th) => callsOf(th, 'thread work') !== undefined);
  t.is(threads.length, 1 + others + FIRST_ROUND + n, 'the main thread and every worker');
  t.is(workers.length, FIRST_ROUND + n);
  t.true(workers.every((th) => callsOf(th, 'thread work') === 1));
  // odd arguments run the inner timer: half of the n, and the first round (1, 3, 5, 7)
  t.is(workers.filter((th) => callsOf(th, 'inner step') === 1).length, n / 2 + FIRST_ROUND);
  t.true(workers.every((th) => th.userEvents.find((u) => u.name === 'work value')?.count === 1));
  // threads 0, 500, 1000, ... ran a timer after the runtime's own end of the thread
  t.is(threads.filter((th) => callsOf(th, 'after thread end') === 1).length, Math.ceil(n / 500));
  const meta = new Map(threads[0]!.metadata);
  t.is(meta.get('hyprof Ended Threads Kept'), String(others + FIRST_ROUND + n));
  const bytes = Number(meta.get('hyprof Ended Threads Memory (bytes)'));
  t.true(bytes > 0 && bytes / (FIRST_ROUND + n) < 10 * 1024, `${bytes} bytes kept`);
}

for (const sampling of ['0', '1']) {
  test(`2,000 ended threads keep under 10 KB each (${sampling === '1' ? 'with sampling' : 'probes only'}), all in the profile`, async (t) => {
    const dir = join(tmpDir('ended-threads'), 'profile');
    const r = await hyprof(['run', '--dir', dir, '--', exe, String(THREADS)], { env: { HYPROF_SAMPLING: sampling } });
    t.is(r.code, 0, r.stderr);
    const m = /rss_before_kb (\d+) rss_after_kb (\d+)/.exec(r.stdout);
    t.truthy(m, r.stdout);
    const perThread = ((Number(m![2]) - Number(m![1])) * 1024) / THREADS;
    t.log(`resident memory per ended thread: ${Math.round(perThread)} bytes`);
    t.true(perThread < 10 * 1024, `${Math.round(perThread)} bytes per ended thread`);
    checkProfile(t, dir, THREADS);
  });
}

test('threads ending while another thread flushes over and over are all in the profile', async (t) => {
  const dir = join(tmpDir('ended-threads-flush'), 'profile');
  // fewer threads: every flush writes them all
  const r = await hyprof(['run', '--dir', dir, '--', exe, '400', 'flush'], { env: { HYPROF_SAMPLING: '1' } });
  t.is(r.code, 0, r.stderr);
  checkProfile(t, dir, 400, 1);
});
