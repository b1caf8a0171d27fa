/**
 * `hyprof report` holds what it prints, not the profile: a real program's 10^5 dynamic phases
 * (test/native/many_events.c under `hyprof run`: 200,000 contexts, 300,000 event lines, a 26 MB
 * file) reported with V8's heap cut to HEAP_MB. Reading the whole thread into objects first took
 * about 130 MB of heap for the flat report and 260 MB with --callpath; reading it line by line and
 * keeping a row per timer and the event-path tree in columns takes 28 MB and 40 MB
 * (bench/RESULTS.md "Many events"). Over the heap limit, node aborts ("JavaScript heap
 * out of memory"). Times are measured in bench/many-events.ts, not here.
 */
import test from 'ava';
import { join } from 'node:path';
import { cliPath, compileC, run, tmpDir } from './helpers/native.js';

const PHASES = 100_000;
const HEAP_MB = 90;

let dir = '';
test.before(async () => {
  const exe = compileC('many_events', ['many_events.c'], { cflags: ['-O2', '-g'] });
  dir = join(tmpDir('memory-bound'), 'prof');
  // run() checks the profile written for conformance.
  const r = await run(process.execPath, [cliPath, 'run', '--no-sampling', '--dir', dir, '--', exe, String(PHASES), 'phases'], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`hyprof run failed:\n${r.stderr}`);
});

/** Lines of a text that contain `what`. */
function count(text: string, what: string): number {
  let n = 0;
  for (let at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length)) n++;
  return n;
}

for (const args of [[], ['--callpath'], ['--json']]) {
  test(`report ${args.join(' ') || '(flat)'} of ${PHASES} phases within a ${HEAP_MB} MB heap`, async (t) => {
    const r = await run(process.execPath, [`--max-old-space-size=${HEAP_MB}`, cliPath, 'report', dir, ...args], { timeoutMs: 300_000 });
    t.is(r.signal, null, `killed by ${r.signal}: ${r.stderr.slice(-2000)}`);
    t.is(r.code, 0, r.stderr.slice(-2000));
    t.is(r.stderr, '');
    if (args[0] === '--json') {
      const rows = (JSON.parse(r.stdout) as { threads: Array<{ rows: Array<{ name: string }> }> }).threads[0].rows;
      t.is(rows.filter((x) => x.name.startsWith('Iteration ')).length, PHASES);
      return;
    }
    // Every phase in the flat table, and with --callpath once more in the tree with its timer under it.
    t.is(count(r.stdout, ' Iteration '), args.length === 0 ? PHASES : 2 * PHASES);
    t.true(r.stdout.includes(`Iteration ${PHASES - 1}`));
    if (args[0] === '--callpath') t.true(count(r.stdout, '  work\n') >= PHASES, 'the timer under each phase');
  });
}
