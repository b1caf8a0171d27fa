/**
 * bench/node-sigterm: how long after SIGTERM a Node server run under `hyprof run` has its profile
 * (issue 29: within 2 s for a 15-second run). `hyprof run -- node bench/node-sigterm-server.mjs`
 * (a node:http server under a loop of 10 concurrent requests from the same process, run until
 * stopped) gets SIGTERM after `seconds` of serving; measured: the wall time from the signal to the
 * end of `hyprof run` (the program's raw file written, resolved, the profile in place). Each CLI given is one
 * configuration (another build of hyprof, to compare before and after), rounds interleaved.
 * Run: node dist/bench/node-sigterm.js [rounds] [seconds] [cli.js ...]   (default 2 rounds, 15 s,
 * this build's CLI)
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, Samples } from './lib.js';

const args = process.argv.slice(2);
const numbers = args.filter((a) => /^\d+(\.\d+)?$/.test(a)).map(Number);
const rounds = numbers[0] ?? 2;
const seconds = numbers[1] ?? 15;
const clis = args.filter((a) => !/^\d+(\.\d+)?$/.test(a));
if (clis.length === 0) clis.push(cliPath);
const program = join(repoRoot, 'bench', 'node-sigterm-server.mjs');
const dir = tmpDir('node-sigterm');
const toProfile = new Samples();
const all = new Map<string, number[]>();
const failures: string[] = [];

/** One run: seconds from SIGTERM to the end of `hyprof run`. */
function once(cli: string, out: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    rmSync(out, { recursive: true, force: true });
    const child = spawn(process.execPath, [cli, 'run', '-o', out, '--', process.execPath, program], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let signalled = 0;
    child.stdout.once('data', () => {
      setTimeout(() => {
        signalled = performance.now();
        child.kill('SIGTERM');
      }, seconds * 1000);
    });
    child.on('exit', () => {
      const afterSignal = (performance.now() - signalled) / 1000;
      if (!signalled || !existsSync(out) || !readdirSync(out).some((f) => f.startsWith('profile.'))) {
        reject(new Error(`${cli}: no profile in ${out} after SIGTERM: ${stderr}`));
        return;
      }
      resolvePromise(afterSignal);
    });
  });
}

const runs: Array<() => Promise<void>> = [];
interleave(clis, rounds, (cli, round) => {
  runs.push(async () => {
    try {
      const t = await once(cli, join(dir, `prof-${clis.indexOf(cli)}-${round}`));
      toProfile.add(cli, t);
      all.set(cli, [...(all.get(cli) ?? []), t]);
    } catch (e) {
      failures.push((e as Error).message);
    }
  });
});
const before = conditions();
for (const run of runs) await run();
console.log(`${before}\n${seconds} s of serving, then SIGTERM; ${rounds} rounds interleaved\n`);
console.log('| hyprof CLI | SIGTERM → profile written, min | median | max |');
console.log('|---|---|---|---|');
for (const cli of clis) {
  if (!toProfile.has(cli)) continue;
  const s = toProfile.get(cli);
  console.log(`| ${cli} | ${fmt(s.min)} s | ${fmt(s.median)} s | ${fmt(Math.max(...all.get(cli)!))} s |`);
}
for (const f of failures) console.log(`failed: ${f}`);
console.log(`\n${conditions()}`);
