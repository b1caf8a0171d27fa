/**
 * Perf maps (src/symbolize/perf-map.ts): V8's JIT code names read back as function, file, line; later
 * lines win over earlier ones for the same addresses; a map left by an earlier process with the same
 * pid is not used.
 */
import test from 'ava';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { jitFrame, PerfMap, perfMapPath, WASM_FILE } from '../src/symbolize/perf-map.js';

test('V8 names become function, file (a path for file: URLs) and line', (t) => {
  t.deepEqual(jitFrame('JS:*hot file:///tmp/app/a.mjs:2:13'), { function: 'hot', file: '/tmp/app/a.mjs', line: 2 });
  t.deepEqual(jitFrame('JS:~run node:internal/main/run_main_module:23:47'), {
    function: 'run',
    file: 'node:internal/main/run_main_module',
    line: 23,
  });
  t.deepEqual(jitFrame('JS:^ /srv/app/b.js:10:3'), { function: '(anonymous)', file: '/srv/app/b.js', line: 10 });
  t.deepEqual(jitFrame('Script:~ file:///tmp/app/a.mjs:1:1'), { function: '(anonymous)', file: '/tmp/app/a.mjs', line: 1 });
  // accessors: V8's name has a space, the location follows the last one
  t.deepEqual(jitFrame('JS:*get node file:///tmp/app/index.mjs:16902:11'), { function: 'get node', file: '/tmp/app/index.mjs', line: 16902 });
  t.deepEqual(jitFrame('JS:~set size /srv/app/b.js:7:3'), { function: 'set size', file: '/srv/app/b.js', line: 7 });
  t.deepEqual(jitFrame('Builtin:JSEntry'), { function: 'Builtin:JSEntry', file: '', line: 0 });
  t.deepEqual(jitFrame('BytecodeHandler:Star0'), { function: 'BytecodeHandler:Star0', file: '', line: 0 });
  // WebAssembly: V8's index and tier go, the function keeps the module's name for it (or
  // wasm-function[index]), as --cpu-prof names it; the module is not named (WASM_FILE)
  t.deepEqual(jitFrame('JS:wasm-function[1537]-1537-turbofan'), { function: 'wasm-function[1537]', file: WASM_FILE, line: 0 });
  t.deepEqual(jitFrame('JS:sqlite3_step-88-liftoff'), { function: 'sqlite3_step', file: WASM_FILE, line: 0 });
  t.deepEqual(jitFrame('JS:wasm-to-js:iiii:i-13-turbofan'), { function: 'wasm-to-js:iiii:i', file: WASM_FILE, line: 0 });
  t.is(WASM_FILE, 'wasm://wasm');
  t.deepEqual(jitFrame('Stub:js-to-wasm:i:i'), { function: 'Stub:js-to-wasm:i:i', file: '', line: 0 });
});

test('lookup: address ranges, later lines win, gaps and ends miss', (t) => {
  const map = new PerfMap(
    [
      '1000 100 JS:~old file:///a.js:1:1',
      '2000 10 Builtin:X',
      'garbage line',
      '1000 80 JS:*new file:///a.js:1:1', // the code at 0x1000 was replaced
      '3000 0 JS:empty file:///a.js:9:1',
    ].join('\n'),
  );
  t.is(map.size, 3);
  t.is(map.lookup(0x1000n), 'JS:*new file:///a.js:1:1');
  t.is(map.lookup(0x107fn), 'JS:*new file:///a.js:1:1');
  t.is(map.lookup(0x1080n), 'JS:~old file:///a.js:1:1'); // beyond the new code, still in the old range
  t.is(map.lookup(0x1100n), null);
  t.is(map.lookup(0x200fn), 'Builtin:X'); // sizes are hex too
  t.is(map.lookup(0x2010n), null);
  t.is(map.lookup(0x3000n), null);
  t.is(map.lookup(0xfffn), null);
});

test('a perf map older than the process is not used, with a warning; a current one is', (t) => {
  const pid = 4_000_000 + Math.floor(Math.random() * 100_000);
  const path = perfMapPath(pid);
  writeFileSync(path, '1000 10 JS:*f file:///x.js:3:1\n');
  try {
    const warnings: string[] = [];
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const current = PerfMap.forProcess(pid, startNs, (w) => warnings.push(w));
    t.is(current?.lookup(0x1004n), 'JS:*f file:///x.js:3:1');
    t.deepEqual(warnings, []);
    const old = new Date(Date.now() - 3600_000);
    utimesSync(path, old, old);
    t.is(PerfMap.forProcess(pid, startNs, (w) => warnings.push(w)), null);
    t.is(warnings.length, 1);
    t.is(warnings[0], `${path} is older than process ${pid} (left by an earlier process with the same pid): not used for its JIT frames`);
    t.is(PerfMap.forProcess(pid + 1, startNs, (w) => warnings.push(w)), null); // none: no warning
    t.is(warnings.length, 1);
  } finally {
    rmSync(path, { force: true });
  }
});
