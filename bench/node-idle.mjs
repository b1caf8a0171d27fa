// Second workload of bench/node-vs-cpuprof.ts: a mostly idle program, as a server waiting for
// requests is. A timer fires every 50 ms for about 3 s and does a little work (a small JSON round
// trip, and every tenth tick a file read, which goes through libuv's thread pool); the rest of the
// time the main thread sleeps in the event loop. What a profiler costs here is mostly its cost on
// the process's idle threads.
import { readFile } from 'node:fs';

const file = new URL(import.meta.url);
const data = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b', String(i)] }));
let ticks = 0;
let sum = 0;
const timer = setInterval(() => {
  sum += JSON.parse(JSON.stringify(data)).length;
  if (++ticks % 10 === 0) readFile(file, (err, buf) => { if (!err) sum += buf.length; });
  if (ticks === 60) {
    clearInterval(timer);
    console.log(`${ticks} ticks ${sum}`);
  }
}, 50);
