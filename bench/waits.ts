/**
 * bench/waits: what the interposed waits (native/sample/waits.c) add to a call when no signal
 * arrives — the common case. Each call returns at once (a readable pipe with a 1 s timeout, a zero
 * nanosleep, a posted semaphore with a far deadline), so the wrapper's share is as large as it gets:
 *  - instructions per call (valgrind --tool=callgrind, only the loop counted): plain, the runtime
 *    preloaded with sampling off (the calls pass straight to libc), with sampling on (the wrapper
 *    reads the clock and the signal counts; a 1 s period, so no signal arrives in the loop);
 *  - ns per call, wall and the thread's CPU time, the same three configurations interleaved, min and
 *    median over the rounds (a loaded machine moves these; the instructions do not).
 * Run: node dist/bench/waits.js [calls] [rounds]   (callgrind needs valgrind)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { compileC, libPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { alignFlags, conditions, fmt, interleave, Samples } from './lib.js';

const calls = Number(process.argv[2] ?? 100000);
const rounds = Number(process.argv[3] ?? 5);
const dir = tmpDir('bench-waits');
const exe = compileC('waits', [join(repoRoot, 'bench', 'waits.c')], { cflags: ['-O2', '-g', ...alignFlags], link: false, outDir: dir });
const raw = join(dir, 'raw');

const kinds = ['poll', 'select', 'epoll_wait', 'nanosleep', 'sem_timedwait'];
interface Config {
  name: string;
  env: Record<string, string>;
}
const configs: Config[] = [
  { name: 'plain', env: {} },
  { name: 'runtime, sampling off', env: { LD_PRELOAD: libPath, HYPROF_SAMPLING: '0' } },
  { name: 'runtime, sampling on (1 s period)', env: { LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '1000000' } },
];
const base = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: raw, HYPROF_DIR: raw };

console.log(conditions());
const haveValgrind = spawnSync('sh', ['-c', 'command -v valgrind'], { stdio: 'ignore' }).status === 0;
if (haveValgrind) {
  const n = 2000;
  console.log(`\nInstructions per call (callgrind, ${n} calls, only the loop counted):`);
  console.log(`| call | ${configs.map((c) => c.name).join(' | ')} |`);
  console.log(`|---|${configs.map(() => '---').join('|')}|`);
  for (const k of kinds) {
    const cells = configs.map((c) => {
      const out = join(dir, `cg.${k}`);
      const r = spawnSync('valgrind', ['--tool=callgrind', '--toggle-collect=run_calls', `--callgrind-out-file=${out}`, exe, k, String(n)], {
        encoding: 'utf8',
        env: { ...base, ...c.env },
      });
      if (r.status !== 0) throw new Error(`valgrind ${k} (${c.name}): ${r.stderr.slice(-500)}`);
      return fmt(Number(/Collected : (\d+)/.exec(r.stderr)?.[1] ?? NaN) / n, 0);
    });
    console.log(`| ${k} | ${cells.join(' | ')} |`);
  }
}

const s = new Samples();
interleave(configs, rounds, (c) => {
  for (const k of kinds) {
    const r = spawnSync(exe, [k, String(calls)], { encoding: 'utf8', env: { ...base, ...c.env } });
    if (r.status !== 0) throw new Error(`${k} (${c.name}): ${r.stderr}`);
    const [wall, cpu] = r.stdout.trim().split(' ').map(Number);
    s.add(`${c.name}/${k}/wall`, wall);
    s.add(`${c.name}/${k}/cpu`, cpu);
  }
});
console.log(`\nns per call, ${calls} calls, ${rounds} rounds interleaved: CPU min / median (wall min / median)`);
console.log(`| call | ${configs.map((c) => c.name).join(' | ')} |`);
console.log(`|---|${configs.map(() => '---').join('|')}|`);
for (const k of kinds) {
  const cells = configs.map((c) => {
    const cpu = s.get(`${c.name}/${k}/cpu`), wall = s.get(`${c.name}/${k}/wall`);
    return `${fmt(cpu.min, 0)} / ${fmt(cpu.median, 0)} (${fmt(wall.min, 0)} / ${fmt(wall.median, 0)})`;
  });
  console.log(`| ${k} | ${cells.join(' | ')} |`);
}
console.log(`\n${conditions()}`);
