/**
 * Using the probe API as a package (`import 'hyprof'` and `require('hyprof')`), and the errors of bad
 * use: each names the timer or value and what was wrong.
 */
import test from 'ava';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import { repoRoot, run, tmpDir } from './helpers/native.js';

/** A directory where `hyprof` resolves to this package, as after `npm install hyprof`. */
function appDir(prefix: string): string {
  const dir = tmpDir(prefix);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(repoRoot, join(dir, 'node_modules', 'hyprof'));
  return dir;
}

async function runScript(dir: string, file: string, source: string, env: Record<string, string> = {}) {
  writeFileSync(join(dir, file), source);
  const r = await run(process.execPath, [join(dir, file)], {
    cwd: dir,
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', ...env },
  });
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  return { ...r, raw: raws.length === 1 ? readRawFile(join(dir, raws[0])) : undefined };
}

function callsOf(p: NonNullable<Awaited<ReturnType<typeof runScript>>['raw']>, name: string): number {
  const id = p.events.find((e) => e.name === name)?.id;
  return p.threads[0].stats.list().filter((s) => p.contexts.get(s.context)?.event === id).reduce((a, s) => a + s.calls, 0);
}

const program = (load: string) => `
${load}
const r = region('outer', () => region('inner', () => 40) + 2);
const t = timer('t');
t.start(); t.stop();
phase('p', () => param('k', { n: 7 }, () => 0));
Promise.resolve(region('later', async () => 1)).then((v) => console.log('result', r, v));
`;

test('ESM: import { region, ... } from "hyprof"', async (t) => {
  const dir = appDir('node-esm');
  const r = await runScript(dir, 'app.mjs', program(`import { region, timer, phase, param } from 'hyprof';`));
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'result 42 1');
  t.truthy(r.raw);
  for (const [n, c] of [['outer', 1], ['inner', 1], ['t', 1], ['p', 1], ['k', 1], ['k  [ <n> = <7> ]  ', 1], ['later', 1]] as const)
    t.is(callsOf(r.raw!, n), c, n);
});

test('CommonJS: const { region, ... } = require("hyprof")', async (t) => {
  const dir = appDir('node-cjs');
  const r = await runScript(dir, 'app.cjs', program(`const { region, timer, phase, param } = require('hyprof');`));
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'result 42 1');
  t.is(callsOf(r.raw!, 'outer'), 1);
  t.is(callsOf(r.raw!, 'later'), 1);
});

const misuses: Array<[string, string, string]> = [
  ['stop of a timer never started', `timer('io').stop()`, `hyprof: timer 'io' stopped but not running (never started, or already stopped)`],
  ['timer stopped twice', `const t = timer('io'); t.start(); t.stop(); t.stop()`, `hyprof: timer 'io' stopped but not running (never started, or already stopped)`],
  ['timer started twice', `const t = timer('io'); t.start(); t.start()`, `hyprof: timer 'io' started again while it is running`],
  ['region name not a string', `region(42, () => 1)`, `hyprof: region name must be a non-empty string, got number 42`],
  ['empty phase name', `phase('', () => 1)`, `hyprof: phase name must be a non-empty string, got string ""`],
  ['timer name not a string', `timer(undefined)`, `hyprof: timer name must be a non-empty string, got undefined`],
  ['region without a function', `region('r', 'not code')`, `hyprof: region 'r' needs a function to measure, got string "not code"`],
  ['param value not an integer', `param('solve', { n: 1.5 }, () => 1)`, `hyprof: param 'solve': value of 'n' must be an integer (or boolean), got number 1.5`],
  ['param values not an object', `param('solve', 3, () => 1)`, `hyprof: param 'solve' needs an object of parameter values, got number 3`],
  ['group name not a string', `group(['IO'])`, `hyprof: group name must be a non-empty string, got object`],
  ['group option not a string', `region('r', () => 1, { group: 7 })`, `hyprof: region group must be a non-empty string, got number 7`],
];

for (const [what, code, message] of misuses) {
  test(`bad use gives a clear error: ${what}`, async (t) => {
    const dir = appDir('node-misuse');
    const r = await runScript(
      dir,
      'app.mjs',
      `import { region, phase, param, timer, group, HyprofUsageError } from 'hyprof';
       try { ${code}; console.log('no error'); }
       catch (e) { console.log(e instanceof HyprofUsageError, e.message); }`,
    );
    t.is(r.code, 0, r.stderr);
    t.is(r.stdout.trim(), `true ${message}`);
  });
}

test('a region whose function throws is stopped and the error passes through', async (t) => {
  const dir = appDir('node-throw');
  const r = await runScript(
    dir,
    'app.mjs',
    `import { region } from 'hyprof';
     try { region('sync', () => { throw new Error('boom'); }); } catch (e) { console.log(e.message); }
     try { await region('async', async () => { await null; throw new Error('later'); }); } catch (e) { console.log(e.message); }
     region('after', () => 1);`,
  );
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'boom\nlater');
  t.is(callsOf(r.raw!, 'sync'), 1);
  t.is(callsOf(r.raw!, 'async'), 1);
  const after = r.raw!.events.find((e) => e.name === 'after')!.id;
  const s = r.raw!.threads[0].stats.list().find((x) => r.raw!.contexts.get(x.context)?.event === after)!;
  // after runs at the top level again: nothing was left on the stack
  const parent = r.raw!.contexts.get(s.context)!.parent;
  t.is(r.raw!.contexts.get(parent)?.event, r.raw!.events.find((e) => e.name === '.TAU application')!.id);
  t.deepEqual(r.raw!.threads[0].warnings, []);
});

test('a timer left running across an await is stopped with the slice, with warnings in the profile', async (t) => {
  const dir = appDir('node-await-timer');
  const r = await runScript(
    dir,
    'app.mjs',
    `import { region, timer } from 'hyprof';
     await region('task', async () => { const t = timer('leak'); t.start(); await null; t.stop(); });
     region('after', () => 1);`,
  );
  t.is(r.code, 0, r.stderr);
  const w = r.raw!.threads[0].warnings;
  t.true(w.some((x) => x.includes(`'leak', started inside it, is still running`)), w.join('\n'));
  t.is(callsOf(r.raw!, 'task'), 1);
  t.is(callsOf(r.raw!, 'leak'), 1);
  t.is(callsOf(r.raw!, 'after'), 1);
});

test('with measurement off (HYPROF_DISABLE=1) the API still runs the code and writes nothing', async (t) => {
  const dir = appDir('node-disabled');
  const r = await runScript(dir, 'app.mjs', program(`import { region, timer, phase, param } from 'hyprof';`), { HYPROF_DISABLE: '1' });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'result 42 1');
  t.is(r.raw, undefined);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), []);
});

test('an async region that never settles is recorded at exit with its time so far', async (t) => {
  const dir = appDir('node-unsettled');
  const r = await runScript(
    dir,
    'app.mjs',
    `import { region } from 'hyprof';
     region('forever', async () => { await new Promise(() => {}); });
     region('pending', () => new Promise(() => {}));
     setTimeout(() => console.log('done'), 20);`,
  );
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'done');
  t.is(callsOf(r.raw!, 'forever'), 1);
  t.is(callsOf(r.raw!, 'pending'), 1);
  const id = r.raw!.events.find((e) => e.name === 'forever')!.id;
  const s = r.raw!.threads[0].stats.list().find((x) => r.raw!.contexts.get(x.context)?.event === id)!;
  t.true(s.incl[0] >= 15e6, `inclusive ${s.incl[0]} ns covers the wait until exit`);
});
