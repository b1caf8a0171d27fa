/**
 * bench/openmp-load: do the OpenMP diagnoses of a program hold on a busy machine? Each program given
 * is measured as a user measures it (`hyprof run`, 2 threads, the default level and period), rounds
 * times idle and rounds times beside a CPU hog of one busy process per CPU (which doubles the load),
 * interleaved; the strong findings (kind and first line) of every run are listed, and the findings
 * strong in some runs and not in others are counted. test/openmp-load.test.ts does the same on the
 * project's own kernels; this is for programs the project did not write (LULESH, BOTS), which a user
 * builds and names here:
 *
 *   node dist/bench/openmp-load.js 3 -- ./lulesh -s 25 -i 60 -- ./fib -n 30 -x 30 -- ./sort -n 20000000
 *
 * Each `--` starts a program and its arguments.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { readOpenmpFile } from '../src/analysis/openmp.js';
import { repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, interleave } from './lib.js';

const argv = process.argv.slice(2);
const rounds = Number(argv[0] ?? 3);
const programs: string[][] = [];
for (const a of argv.slice(1)) {
  if (a === '--') programs.push([]);
  else programs.at(-1)?.push(a);
}
if (!Number.isInteger(rounds) || rounds < 1 || programs.length === 0 || programs.some((p) => p.length === 0)) {
  process.stderr.write('usage: node dist/bench/openmp-load.js <rounds> -- <program> [args...] [-- <program> [args...]]...\n');
  process.exit(2);
}

const cli = join(repoRoot, 'dist', 'src', 'cli', 'main.js');

/** One line naming the program and what went wrong, and exit 1: a run that failed, no OpenMP data. */
function fail(program: string[], why: string): never {
  process.stderr.write(`openmp-load: ${program.join(' ')}: ${why}\n`);
  process.exit(1);
}

function hog(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
}

/** The strong and weak findings of one run: `kind at first-line`. */
function measure(program: string[], loaded: boolean): { strong: string[]; weak: string[]; oversubscribed: boolean } {
  const dir = join(tmpDir('omp-load-bench'), 'prof');
  const hogs = loaded ? hog() : [];
  let r;
  try {
    r = spawnSync(process.execPath, [cli, 'run', '--dir', dir, '--', ...program], {
      env: { ...process.env, OMP_NUM_THREADS: '2' },
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
  }
  if (r.status !== 0) fail(program, `hyprof run exited ${r.status ?? r.signal}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
  let a;
  try {
    a = readOpenmpFile(dir).processes[0];
  } catch (e) {
    fail(program, (e as Error).message);
  }
  if (!a) fail(program, 'no process with OpenMP measurements');
  const name = (d: (typeof a.diagnoses)[number]) => `${d.kind} at ${d.location.split(', ')[0].replace(/^.*\//, '')}`;
  return {
    strong: a.diagnoses.filter((d) => d.severity === 'strong').map(name).sort(),
    weak: a.diagnoses.filter((d) => d.severity === 'weak').map(name).sort(),
    oversubscribed: a.load.oversubscribed,
  };
}

console.log(conditions());
type Run = ReturnType<typeof measure>;
const runs = new Map<string, Run[]>();
const configs = programs.flatMap((p) => [false, true].map((loaded) => ({ p, loaded })));
interleave(configs, rounds, ({ p, loaded }) => {
  const key = `${p.join(' ')}|${loaded ? 'hog' : 'idle'}`;
  const list = runs.get(key) ?? [];
  const t0 = Date.now();
  const r = measure(p, loaded);
  list.push(r);
  runs.set(key, list);
  // as it goes: a run beside the hog may take minutes (libomp's waits yield to the hog)
  const said = r.oversubscribed ? ', said oversubscribed' : '';
  console.log(`${key} (${((Date.now() - t0) / 1000).toFixed(1)} s${said}): strong ${r.strong.join('; ') || 'none'}; weak ${r.weak.join('; ') || 'none'}`);
});

console.log(`\n${rounds} runs idle and ${rounds} beside a hog of ${availableParallelism()} busy processes, each program, 2 threads\n`);
console.log('| program | strong findings idle (runs of ' + rounds + ') | strong beside the hog | strong in some runs only | weak on one side only |');
console.log('|---|---|---|---|---|');
for (const p of programs) {
  const idle = runs.get(`${p.join(' ')}|idle`) ?? [];
  const hogged = runs.get(`${p.join(' ')}|hog`) ?? [];
  const count = (rs: Run[], k: 'strong' | 'weak') => {
    const m = new Map<string, number>();
    for (const r of rs) for (const f of new Set(r[k])) m.set(f, (m.get(f) ?? 0) + 1);
    return m;
  };
  const si = count(idle, 'strong');
  const sh = count(hogged, 'strong');
  const all = new Set([...si.keys(), ...sh.keys()]);
  const unstable = [...all].filter((f) => (si.get(f) ?? 0) + (sh.get(f) ?? 0) < idle.length + hogged.length);
  const list = (m: Map<string, number>) => [...m].map(([f, n]) => `${f} (${n})`).join('; ') || 'none';
  const wi = count(idle, 'weak');
  const wh = count(hogged, 'weak');
  const weakOneSide = [...new Set([...wi.keys(), ...wh.keys()])].filter((f) => !wi.has(f) || !wh.has(f)).length;
  // Findings on timed waits are at most weak on a run said oversubscribed: an idle run said so counts.
  const over = hogged.filter((r) => r.oversubscribed).length;
  const overIdle = idle.filter((r) => r.oversubscribed).length;
  console.log(
    `| ${p.map((x) => x.replace(/^.*\//, '')).join(' ')} | ${list(si)}${overIdle ? ` (oversubscribed said ${overIdle}/${idle.length})` : ''} | ${list(sh)} (oversubscribed said ${over}/${hogged.length}) | ${unstable.length} | ${weakOneSide} |`,
  );
}
