// A JavaScript program for test/node-v8jit.test.ts: a hot loop on a known line of an optimised
// function (main thread and a worker thread), and an optimised caller whose callee is never
// optimised (so never inlined: the caller's frame keeps the line of the call). Run with
// --allow-natives-syntax. Prints the pid and whether V8's perf map exists at the end.
import { existsSync } from 'node:fs';
import { Worker, isMainThread } from 'node:worker_threads';

function jitHot(ms) {
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 100000; i++) s = (s + Math.sqrt(i) * 1.0001) % 1e9; // HOT LINE
  }
  return s;
}

function slowInner(i) {
  let s = 0;
  for (let k = 0; k < 50; k++) s += (i * k) % 7;
  return s;
}
%NeverOptimizeFunction(slowInner);

function caller(ms) {
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 1000; i++) s += slowInner(i); // CALL LINE
  }
  return s;
}

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url));
  const done = new Promise((r) => worker.once('exit', r));
  let t = jitHot(700);
  t += caller(700);
  await done;
  console.log(`pid ${process.pid} result ${t > 0} perf map ${existsSync(`/tmp/perf-${process.pid}.map`) ? 'present' : 'absent'}`);
} else {
  jitHot(700);
}
