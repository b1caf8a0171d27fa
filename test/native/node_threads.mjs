// A Node program without probes for the thread selection (test/node-threads.test.ts): the main
// thread and one worker thread run JavaScript; a file read starts libuv's thread pool, and V8's
// helper threads exist anyway. While the worker runs, the main thread prints how many threads the
// process has and which of them have a POSIX timer (/proc/self/timers: the sampling timers).
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

// CPU-bound for `ms` milliseconds; what it computes is printed so it cannot be optimised away.
function spinMain(ms) {
  const end = performance.now() + ms;
  let s = 0;
  while (performance.now() < end) for (let i = 0; i < 10000; i++) s = (s + Math.sqrt(i)) % 1e9;
  return s;
}
function spinWorker(ms) {
  const end = performance.now() + ms;
  let s = 0;
  while (performance.now() < end) for (let i = 0; i < 10000; i++) s = (s + Math.cbrt(i)) % 1e9;
  return s;
}

if (isMainThread) {
  await readFile(new URL(import.meta.url)); // the thread pool's threads start
  const worker = new Worker(new URL(import.meta.url));
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  await new Promise((resolve) => worker.once('message', resolve)); // the worker runs its code
  const tasks = readdirSync('/proc/self/task').length;
  let timers = 'n/a';
  if (existsSync('/proc/self/timers')) {
    const tids = readFileSync('/proc/self/timers', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('notify:'))
      .map((l) => l.split('tid.')[1] ?? '');
    timers = `${tids.length} main ${tids.includes(String(process.pid))}`;
  }
  console.log(`threads ${tasks} timers ${timers}`);
  console.log(`main ${spinMain(300)}`);
  await exited;
} else {
  parentPort.postMessage('running');
  console.log(`worker ${spinWorker(600)}`);
}
