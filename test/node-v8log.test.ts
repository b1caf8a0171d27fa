/**
 * Functions inlined from another file named from V8's own code log (src/symbolize/v8-log.ts,
 * src/run/run-node-jit.ts; docs/node.md, "Functions inlined into optimised code"): a real run of
 * test/native/node_inline_main.cjs, whose hot() has helper() of node_inline_lib.cjs inlined; the
 * program, its worker and its forked child see the arguments they see without hyprof, a program it
 * starts inherits no descriptor of the log, and only the main thread writes a log. Then the reader on hand-made logs: what it trusts and
 * what it refuses, and when `hyprof run` asks V8 for the log.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { v8LogArgs, type NodeJitPlan } from '../src/run/run-node-jit.js';
import { unescapeV8, V8Log } from '../src/symbolize/v8-log.js';
import { hyprof, libDir, run, testNativeDir, tmpDir } from './helpers/native.js';

const main = join(testNativeDir, 'node_inline_main.cjs');
const lib = join(testNativeDir, 'node_inline_lib.cjs');
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lineIn = (file: string, pick: (l: string) => boolean) => readFileSync(file, 'utf8').split('\n').findIndex(pick) + 1;
const helperStart = lineIn(lib, (l) => l.startsWith('function helper'));
const leafStart = lineIn(lib, (l) => l.startsWith('function leafWork'));
const callLine = lineIn(main, (l) => l.includes('// CALL LINE'));

const measured = (async () => {
  const dir = tmpDir('node-v8log');
  const out = join(dir, 'prof');
  const r = await hyprof(['run', '--keep-raw', '--dir', out, '--', process.execPath, '--allow-natives-syntax', main], {
    cwd: dir,
    env: { NODE_OPTIONS: undefined },
    timeoutMs: 120_000,
  });
  const rawDir = /raw measurements kept in (.+)$/m.exec(r.stderr)?.[1] ?? '';
  const plain = await run(process.execPath, ['--allow-natives-syntax', main, '10'], { cwd: dir, env: { NODE_OPTIONS: undefined } });
  return { r, out, dir, rawDir, plain };
})();

test('a function inlined from another file is named, in its file, where it called something', async (t) => {
  const { r, out } = await measured;
  t.is(r.code, 0, r.stderr);
  const thread = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  // leafWork (never optimised) is called from helper's code inlined into hot's: without V8's log the
  // caller's frame is hot alone (the file of the position is not known)
  const through = new RegExp(
    `hot \\[\\{${esc(main)}\\} \\{${callLine}\\}\\] => \\[UNWIND\\] [^=]* \\[@\\] helper \\[\\{${esc(lib)}\\} \\{${helperStart}\\}\\] => \\[SAMPLE\\] leafWork \\[\\{${esc(lib)}\\} \\{${leafStart}\\}\\]$`,
  );
  const via = thread.events.filter((e) => through.test(e.name)).reduce((a, e) => a + e.excl, 0);
  const leaf = thread.events.filter((e) => e.name.startsWith('[SAMPLE] leafWork ')).reduce((a, e) => a + e.excl, 0);
  t.true(leaf > 0 && via > 0.5 * leaf, `leafWork ${leaf} µs, ${via} µs of it under hot => helper: ${thread.events.filter((e) => /=> \[SAMPLE\] leafWork/.test(e.name)).map((e) => e.name.split(' => ').slice(-3).join(' => ')).slice(0, 3).join('; ')}`);
});

test('the program, its worker and its forked child see the arguments they see without hyprof; a program it starts inherits no V8 log', async (t) => {
  const { r, plain } = await measured;
  t.is(plain.code, 0, plain.stderr);
  const seen = (s: string) => s.split('\n').filter((l) => l.startsWith('{'));
  t.deepEqual(seen(r.stdout), seen(plain.stdout));
  const given = JSON.stringify(['--allow-natives-syntax']);
  t.deepEqual(seen(plain.stdout), [`{"main":${given}}`, '{"inheritedLogs":0}', `{"worker":${given}}`, `{"child":${given}}`]);
});

test("only the main thread's log is written, into the raw directory, nothing into the working directory", async (t) => {
  const { r, rawDir, dir } = await measured;
  t.is(r.code, 0, r.stderr);
  const logs = readdirSync(rawDir).filter((f) => f.endsWith('-v8.log'));
  // the forked child is measured too (its raw file), without a log: its arguments are its own
  t.is(logs.length, 1, readdirSync(rawDir).join(', '));
  t.regex(logs[0], /^isolate-0x[0-9a-f]+-\d+-v8\.log$/);
  t.deepEqual(readdirSync(dir).sort(), ['prof']);
});

test('hyprof run asks V8 for the log only when it starts node itself, and not over a log the user asked for', (t) => {
  const dir = tmpDir('node-v8log-args');
  const events: NodeJitPlan = { flags: [], note: null };
  t.deepEqual(v8LogArgs('/usr/bin/node', ['app.js'], dir, events), ['--log-code', '--no-log-source-code', `--logfile=${join(dir, 'v8.log')}`]);
  t.deepEqual(v8LogArgs('nodejs', ['--max-old-space-size=100', 'app.js', '--prof'], dir, events).length, 3, "the program's own arguments are not node's");
  t.deepEqual(v8LogArgs('node', ['--prof', 'app.js'], dir, events), []);
  t.deepEqual(v8LogArgs('node', ['--logfile=mine.log', '--log-code', 'app.js'], dir, events), []);
  t.deepEqual(v8LogArgs('node', ['--no_logfile_per_isolate', 'app.js'], dir, events), []);
  t.deepEqual(v8LogArgs('node', ['--require', './setup.js', '--prof', 'app.js'], dir, events), [], "an option's value is not the script");
  t.is(v8LogArgs('node', ['app.js', '--log-level', 'debug'], dir, events).length, 3, "the program's --log-level is its own");
  t.deepEqual(v8LogArgs('node', ['-e', 'run()', '--prof'], dir, events), [], "after -e's code node's options go on");
  t.deepEqual(v8LogArgs('./app', [], dir, events), [], 'not node');
  t.deepEqual(v8LogArgs('node', ['app.js'], dir, { flags: [], note: 'perf map' }), [], 'the V8 part is not used');
  // V8 writes its log to stdout when it cannot open the file
  t.deepEqual(v8LogArgs('node', ['app.js'], join(dir, 'missing'), events), []);
});

/** A log as V8 writes it: helper (script 2, positions 30–90) inlined into hot (script 1, 10–200). */
function log(lines: string[]): string {
  return [
    'v8-version,11,3,244,8,-node.19,0',
    'code-creation,Builtin,2,9800,0x18c4000,768,DeoptimizationEntry_Eager',
    'code-creation,JS,10,100,0x1000,50,helper /app/lib.js:3:16,0xa0,~',
    'code-source-info,0x1000,2,30,90,C0O30C5O60,,',
    'code-creation,JS,10,110,0x2000,60,hot /app/main.js:9:13,0xb0,~',
    'code-source-info,0x2000,1,10,200,C0O10C5O120,,',
    'code-creation,JS,13,200,0x7f00,944,hot /app/main.js:9:13,0xb0,*',
    'code-source-info,0x7f00,1,10,200,C0O10C40O120C60O60I0C80O30I0C100O150,F0O120,S0xa0',
    ...lines,
  ].join('\n');
}
/** The V8 part's line table of hot's code: line 11 from offset 40, 12 from 100 (its own positions). */
const lineAt = (offset: number) => (offset >= 100 ? 12 : offset >= 40 ? 11 : 9);

test("V8's log: inlined positions name the inlined function and the call's line in the outer one", (t) => {
  const v8 = new V8Log([log([])]);
  t.is(v8.unreadable, 0);
  t.is(v8.size, 1);
  t.deepEqual(v8.frames(0x7f00n, 944n, 'JS:*hot /app/main.js:9:13', 65, lineAt), [
    { function: 'helper', file: '/app/lib.js', line: 3 },
    { function: 'hot', file: '/app/main.js', line: 11 },
  ]);
  // an own position: the outer function alone, at its line
  t.deepEqual(v8.frames(0x7f00n, 944n, 'JS:*hot /app/main.js:9:13', 100, lineAt), [{ function: 'hot', file: '/app/main.js', line: 12 }]);
});

test("V8's log: a code that is not the V8 part's, or an inlining that does not hold, names nothing", (t) => {
  const v8 = new V8Log([log([])]);
  t.is(v8.frames(0x7f00n, 944n, 'JS:*other /app/main.js:9:13', 65, lineAt), null, 'another name at that address');
  t.is(v8.frames(0x7f00n, 900n, 'JS:*hot /app/main.js:9:13', 65, lineAt), null, 'another size');
  // helper's SharedFunctionInfo moved and its address now names a function whose span misses position 60
  const moved = new V8Log([
    log([]).replace('code-creation,JS,13,', 'code-creation,JS,10,150,0x3000,20,other /app/x.js:1:1,0xa0,~\ncode-source-info,0x3000,3,0,20,C0O0,,\ncode-creation,JS,13,'),
  ]);
  t.is(moved.frames(0x7f00n, 944n, 'JS:*hot /app/main.js:9:13', 65, lineAt), null);
  // an inlining id the table does not have
  t.is(new V8Log([log([]).replace('C60O60I0', 'C60O60I3')]).frames(0x7f00n, 944n, 'JS:*hot /app/main.js:9:13', 65, lineAt), null);
  // a cut line of a function some code inlines is counted (lines of others are not read at all)
  const bad = new V8Log([log(['code-creation,JS,10', 'code-creation,JS,10,300,0x5000,10,f /a.js:1:1,0xa0,~', 'code-source-info,0x5000,1'])]);
  t.is(bad.unreadable, 1, 'a cut line is counted');
});

test("V8's log: code the collector moved keeps its inlining at the new address", (t) => {
  const v8 = new V8Log([log(['code-move,0x7f00,0x9f00'])]);
  t.deepEqual(v8.frames(0x9f00n, 944n, 'JS:*hot /app/main.js:9:13', 85, lineAt)?.[0], { function: 'helper', file: '/app/lib.js', line: 3 });
});

test("V8's log: names are unescaped as V8 escapes them", (t) => {
  t.is(unescapeV8('a\\x2Cb\\\\c\\nd\\u00e9'), 'a,b\\c\nd\u00e9');
  t.is(unescapeV8('plain'), 'plain');
});

test('V8Log.forProcess reads the logs of that process only, and never through a link', (t) => {
  const dir = tmpDir('node-v8log-files');
  t.is(V8Log.forProcess(dir, 42, () => t.fail()), null);
  t.is(V8Log.forProcess(join(dir, 'absent'), 42, () => t.fail()), null);
  writeFileSync(join(dir, 'isolate-0x1a2b-42-v8.log'), log([]));
  writeFileSync(join(dir, 'isolate-0x1a2b-43-v8.log'), log([]).replace(/0x7f00/g, '0x8f00'));
  t.is(V8Log.forProcess(dir, 42, () => t.fail())?.size, 1);
  const other = tmpDir('node-v8log-elsewhere');
  writeFileSync(join(other, 'secret'), log([]));
  symlinkSync(join(other, 'secret'), join(dir, 'isolate-0x3c4d-42-v8.log'));
  const said: string[] = [];
  const v8 = V8Log.forProcess(dir, 42, (w) => said.push(w));
  t.is(v8?.size, 1);
  t.is(said.length, 1);
  t.regex(said[0], /isolate-0x3c4d-42-v8\.log: not read \(ELOOP\)/);
  // a named pipe is not waited on
  execFileSync('mkfifo', [join(dir, 'isolate-0x5e6f-42-v8.log')]);
  const said2: string[] = [];
  t.is(V8Log.forProcess(dir, 42, (w) => said2.push(w))?.size, 1);
  t.true(said2.some((w) => /isolate-0x5e6f-42-v8\.log: not read \(not a regular file\)/.test(w)), said2.join('\n'));
  // a line cut short, said with the file it is in
  const cut = tmpDir('node-v8log-cut');
  writeFileSync(join(cut, 'isolate-0x7a8b-42-v8.log'), log(['code-creation,JS,10,300,0x5000,10,f /a.js:1:1,0xa0,~', 'code-source-info,0x5000,1']));
  const said3: string[] = [];
  t.is(V8Log.forProcess(cut, 42, (w) => said3.push(w))?.unreadable, 1);
  t.deepEqual(said3, [`${join(cut, 'isolate-0x7a8b-42-v8.log')}: 1 line of V8's code log could not be read and was skipped`]);
});

test("the V8 part marks close-on-exec the descriptors open on V8's logs in the raw directory, and only those", (t) => {
  const { closeLogOnExec } = createRequire(import.meta.url)(join(libDir, 'hyprof_v8.node')) as { closeLogOnExec(dir: string): number };
  const dir = tmpDir('node-v8log-fds');
  t.is(closeLogOnExec(dir), 0, 'none open');
  const log = openSync(join(dir, 'isolate-0x1a2b-42-v8.log'), 'w');
  const other = openSync(join(dir, 'v8.log.txt'), 'w');
  const elsewhere = tmpDir('node-v8log-fds-elsewhere');
  const outside = openSync(join(elsewhere, 'isolate-0x1a2b-42-v8.log'), 'w');
  try {
    t.is(closeLogOnExec(dir), 1);
    t.is(closeLogOnExec(`${dir}/`), 0, 'the directory as given, not a prefix of it');
  } finally {
    for (const fd of [log, other, outside]) closeSync(fd);
  }
});
