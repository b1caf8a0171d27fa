/**
 * Profiles with many events through every command: resolve, report (flat, event paths, JSON), the
 * four exports and the viewer's API. Nothing may spread or recurse over all events: a spread of
 * ~130,000 arguments overflowed the stack ("Maximum call stack size exceeded"). The test keeps the
 * defect's shape at a bounded size: 20,000 timers from a real program under `hyprof run`, with node's
 * stack cut to 150 KB (--stack-size), where a spread of 20,000 arguments overflows as 130,000 do on
 * the default stack. The 10^6-event measurements are in bench/many-events.ts.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliPath, compileC, run, tmpDir } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { buildFunctionReport, renderFunctionReport } from '../src/report/report-functions.js';

const N = 20_000;
const SMALL_STACK = '--stack-size=150';
const cli = (args: string[]) => run(process.execPath, [SMALL_STACK, cliPath, ...args], { timeoutMs: 120_000 });

let dir = '';
test.before(async () => {
  const exe = compileC('many_events', ['many_events.c'], { cflags: ['-O2', '-g'] });
  dir = join(tmpDir('size'), 'prof');
  const r = await cli(['run', '--no-sampling', '--dir', dir, '--', exe, String(N), 'timers']);
  if (r.code !== 0) throw new Error(`hyprof run failed:\n${r.stderr}`);
});

test(`resolve wrote ${N} timers that TAU's reader loads`, (t) => {
  const tau = readWithTau(dir);
  t.true(tau.ok, tauReaderComplaints(tau));
  const names = new Set(tau.threads[0].functions.map((f) => f.name));
  t.true(names.has('timer 0') && names.has(`timer ${N - 1}`));
});

for (const args of [[], ['--callpath'], ['--json']]) {
  test(`report ${args.join(' ') || '(flat)'} of ${N} timers`, async (t) => {
    const r = await cli(['report', dir, ...args]);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '');
    t.true(r.stdout.includes(`timer ${N - 1}`));
    if (args[0] === '--json') t.is(JSON.parse(r.stdout).threads[0].rows.length, N + 2);
  });
}

for (const format of ['pprof', 'speedscope', 'collapsed']) {
  test(`export ${format} of ${N} timers`, async (t) => {
    const out = join(tmpDir(`size-${format}`), `out.${format}`);
    const r = await cli(['export', dir, '--format', format, '-o', out]);
    t.is(r.code, 0, r.stderr);
    t.is(r.stderr, '');
  });
}

test(`the viewer's API answers on ${N} timers`, async (t) => {
  const child = spawn(process.execPath, [SMALL_STACK, cliPath, 'view', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        const m = /at (http:\/\/\S+)/.exec(out);
        if (m) ok(m[1]);
      });
      child.once('exit', (code) => fail(new Error(`view exited (${code}): ${err}`)));
    });
    for (const q of ['summary', 'threads', 'table?thread=0', 'table?thread=mean&paths=1', 'tree?thread=0', 'flame?thread=0', 'search?thread=0&q=timer%201']) {
      const r = await fetch(`${url}api/${q}`);
      t.is(r.status, 200, `${q}: ${await r.clone().text()}`);
      await r.json();
    }
    const table = (await (await fetch(`${url}api/table?thread=0`)).json()) as { total: number };
    t.is(table.total, N + 2);
    t.is(err, '');
  } finally {
    child.kill('SIGTERM');
  }
});

test('report --functions of 150,000 sampled functions (on the default stack, in process)', (t) => {
  const n = 150_000;
  const events = [{ name: '.TAU application', calls: 1, subrs: 0, excl: 0, incl: n, group: 'TAU_DEFAULT' }];
  for (let i = 0; i < n; i++) events.push({ name: `[SAMPLE] f${i} [{/src/f.c} {${i + 1}}]`, calls: 1, subrs: 0, excl: 1, incl: 1, group: 'TAU_SAMPLE' });
  const profile = { dir: 'synthetic', metrics: ['TIME'], threads: [[{ node: 0, context: 0, thread: 0, metric: 'TIME', events, userEvents: [], metadata: [] }]] };
  const text = renderFunctionReport(buildFunctionReport(profile));
  t.true(text.includes(`f${n - 1} [/src/f.c]`));
});
