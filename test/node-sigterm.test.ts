/**
 * A Node program under `hyprof run` stopped by SIGTERM or SIGINT has its profile, as a C program has:
 * node resets every signal as it starts and installs its own handler that re-raises the signal with
 * its default action, after the runtime's dump on these signals was in place (native/core/init.c,
 * hp_signal_dump_sigaction); the dump stays in front of it. A program's own handler
 * (`process.on('SIGTERM')`) still decides what the signal does. One small server-like program (a
 * timer loop doing work), three runs.
 */
import test from 'ava';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { hyprof, tmpDir } from './helpers/native.js';

const dir = tmpDir('node-sigterm');
const app = join(dir, 'serve.mjs');
// Work on a timer until stopped; with an argument, a SIGTERM handler of its own that says so and
// exits with status 3 a little later (as a server closing its connections would).
writeFileSync(
  app,
  `let n = 0;
function work() { for (let i = 0; i < 2e5; i++) n += Math.sqrt(i); }
setInterval(work, 2);
if (process.argv[2] === 'handler') process.on('SIGTERM', () => { console.log('closing'); setTimeout(() => process.exit(3), 50); });
console.log('ready');
`,
);

async function stopped(name: string, signal: NodeJS.Signals, args: string[] = []) {
  const out = join(dir, name);
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, app, ...args], {
    env: { NODE_OPTIONS: undefined },
    timeoutMs: 120_000,
    onSpawn: (child) => {
      let sent = false;
      child.stdout!.on('data', (d: Buffer) => {
        if (!sent && d.toString().includes('ready')) {
          sent = true;
          setTimeout(() => child.kill(signal), 1000);
        }
      });
    },
  });
  return { r, out };
}

/** The main thread's samples in the profile (its [SAMPLE] entries' calls). */
function samples(out: string): number {
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  return main.events.filter((e) => /^\[SAMPLE\] /.test(e.name)).reduce((a, e) => a + e.calls, 0);
}

test('SIGTERM: the program ends as without hyprof (status 143) and its profile is written', async (t) => {
  const { r, out } = await stopped('term', 'SIGTERM');
  t.is(r.code, 143, r.stderr);
  t.regex(r.stderr, /hyprof: program killed by SIGTERM; profile of 1 thread written/);
  t.true(readdirSync(out).includes('profile.0.0.0'), readdirSync(out).join(', '));
  t.true(samples(out) > 100, `${samples(out)} samples`);
});

test('SIGINT: the same', async (t) => {
  const { r, out } = await stopped('int', 'SIGINT');
  t.is(r.code, 130, r.stderr);
  t.true(readdirSync(out).includes('profile.0.0.0'), readdirSync(out).join(', '));
});

test("the program's own SIGTERM handler decides: it runs, the program exits with its status, the profile is written at exit", async (t) => {
  const { r, out } = await stopped('handler', 'SIGTERM', ['handler']);
  t.is(r.code, 3, r.stderr);
  t.regex(r.stdout, /closing/);
  t.true(readdirSync(out).includes('profile.0.0.0'), readdirSync(out).join(', '));
});
