// hot() calls helper() of another file, which V8 inlines into hot's optimised code: a profile names
// helper, in node_inline_lib.cjs, under hot (test/node-v8log.test.ts). It also prints the arguments
// the program, a worker and a forked child see, and how many of V8's log files a program it starts
// has open, which must be as without hyprof.
'use strict';
const { fork } = require('node:child_process');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const { helper } = require('./node_inline_lib.cjs');

function hot(n) {
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += helper(i); // CALL LINE
  }
  return t;
}

function spin(ms) {
  const end = Date.now() + ms;
  let r = 0;
  while (Date.now() < end) r += hot(20000);
  return r;
}

if (process.argv[2] === 'child') {
  process.send(JSON.stringify({ child: process.execArgv }));
} else if (!isMainThread) {
  spin(150);
  parentPort.postMessage(JSON.stringify({ worker: process.execArgv }));
} else {
  console.log(JSON.stringify({ main: process.execArgv }));
  // the descriptors a program it starts inherits: none of them hyprof's V8 log
  const fds = require('node:child_process').execFileSync('sh', ['-c', 'ls -l /proc/$$/fd'], { encoding: 'utf8' });
  console.log(JSON.stringify({ inheritedLogs: fds.split('\n').filter((l) => l.endsWith('-v8.log')).length }));
  const ms = Number(process.argv[2] ?? 1500);
  const w = new Worker(__filename);
  w.on('message', (m) => console.log(m));
  w.on('exit', () => {
    const c = fork(__filename, ['child']);
    c.on('message', (m) => console.log(m));
    c.on('exit', () => console.log(spin(ms) > 0));
  });
}
