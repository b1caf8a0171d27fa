// Run by test/node-perfmap-planted.test.ts under `hyprof run` with HYPROF_V8_JIT=0 (V8's perf map):
// some JavaScript for V8 to compile, then what this process's perf map path is now.
import { lstatSync, readFileSync } from 'node:fs';

function hot(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i);
  return x;
}
for (let k = 0; k < 50; k++) hot(100000);
const path = `/tmp/perf-${process.pid}.map`;
const st = lstatSync(path, { throwIfNoEntry: false });
if (!st) console.log('perf map: none');
else if (st.isSymbolicLink()) console.log('perf map: the planted link');
else {
  const text = readFileSync(path, 'utf8');
  console.log(`perf map: a file, mode ${(st.mode & 0o777).toString(8)}, stale line ${text.includes('stale') ? 'kept' : 'gone'}, JS code ${/ JS:/.test(text) ? 'named' : 'missing'}`);
}
