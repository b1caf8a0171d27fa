/**
 * bench/mpi-launch: what each MPI launch form costs per rank (docs/mpi.md, "Launch forms"), on
 * bench/mpi-launch.c (MPI_Init, 200 ms of computation per rank, MPI_Finalize) at 8 and 16
 * oversubscribed ranks:
 *   plain   mpirun ./app                                   the floor
 *   run     hyprof run -- mpirun ./app                      one Node for the job, one resolve
 *   rank    mpirun hyprof run -- ./app                      one Node per rank, each resolving its rank
 *   exec    mpirun hyprof-exec ./app; hyprof resolve ...    a shell per rank that execs; one resolve after
 * interleaved, `rounds` times, min and median of the job's wall and CPU seconds (the whole process
 * tree, bench/cputime.c); CPU added per rank over plain; the processes that live beside each rank for
 * the whole run and their resident memory (each rank reads its ancestors' VmRSS after MPI_Init), and
 * those of the job as a whole. Then the launcher alone, without MPI: `hyprof-exec /bin/true` and
 * `hyprof run -- /bin/true` against `/bin/true` with the runtime preloaded, 20 starts per measurement.
 * Run: node dist/bench/mpi-launch.js [rounds] [ranks...]
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, libPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { mpirunArgs } from '../test/helpers/mpi.js';
import { conditions, fmt, interleave, measureCommand, Samples } from './lib.js';

const rounds = Number(process.argv[2] ?? 3);
const rankCounts = process.argv.length > 3 ? process.argv.slice(3).map(Number) : [8, 16];
const dir = tmpDir('bench-mpi-launch');
const app = join(dir, 'mpi-launch');
const cc = spawnSync('mpicc', ['-O2', join(repoRoot, 'bench', 'mpi-launch.c'), '-o', app], { encoding: 'utf8' });
if (cc.status !== 0) throw new Error(`mpicc failed: ${cc.stderr}`);
const execLauncher = join(repoRoot, 'bin', 'hyprof-exec');
const node = process.execPath;

type Form = 'plain' | 'run' | 'rank' | 'exec';
const forms: Form[] = ['plain', 'run', 'rank', 'exec'];
const samples = new Samples();
const memory = new Map<string, { rank: [number, number]; job: [number, number] }>();

console.log(`# ${conditions()}`);
// The launcher's fragment is written on its first use after a build: not in the figures.
spawnSync(execLauncher, ['true'], { env: { ...process.env, HYPROF_DIR: dir } });

for (const np of rankCounts) {
  interleave(forms, rounds, (form) => {
    const out = join(dir, `${form}-${np}`);
    rmSync(out, { recursive: true, force: true });
    const mpirun = ['mpirun', ...mpirunArgs(np)];
    const cmd: Record<Form, string[]> = {
      plain: [...mpirun, app],
      run: [node, cliPath, 'run', '--dir', out, '--', ...mpirun, app],
      rank: [...mpirun, node, cliPath, 'run', '--dir', out, '--', app],
      exec: [...mpirun, execLauncher, '--dir', out, app],
    };
    const [c, ...args] = cmd[form];
    const r = measureCommand(c, args, process.env, `${form} at ${np} ranks`);
    let { wall, cpu } = r;
    samples.add(`${np} ${form} job wall`, wall);
    samples.add(`${np} ${form} job cpu`, cpu);
    if (form === 'exec') {
      const res = measureCommand(node, [cliPath, 'resolve', join(out, '.hyprof-raw'), '-o', out], process.env, 'resolve');
      samples.add(`${np} exec resolve wall`, res.wall);
      samples.add(`${np} exec resolve cpu`, res.cpu);
      wall += res.wall;
      cpu += res.cpu;
    }
    samples.add(`${np} ${form} wall`, wall);
    samples.add(`${np} ${form} cpu`, cpu);
    const rank = /per-rank (\d+) (\d+)/.exec(r.stdout);
    const job = /per-job (\d+) (\d+)/.exec(r.stdout);
    if (!rank || !job) throw new Error(`${form}: no memory line in ${r.stdout}`);
    memory.set(`${np} ${form}`, { rank: [Number(rank[1]), Number(rank[2])], job: [Number(job[1]), Number(job[2])] });
    rmSync(out, { recursive: true, force: true });
  });
}

console.log('\n| ranks | form | wall s (min / median) | CPU s (min / median) | CPU added per rank over plain, ms (median) | processes beside each rank | their RSS per rank, MiB | processes of the job | their RSS, MiB |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const np of rankCounts) {
  const base = samples.get(`${np} plain cpu`).median;
  for (const form of forms) {
    const w = samples.get(`${np} ${form} wall`);
    const c = samples.get(`${np} ${form} cpu`);
    const m = memory.get(`${np} ${form}`)!;
    const added = form === 'plain' ? '–' : fmt(((c.median - base) / np) * 1000, 0);
    const resolve = form === 'exec' ? ` (resolve ${fmt(samples.get(`${np} exec resolve cpu`).median)} s of it)` : '';
    console.log(
      `| ${np} | ${form} | ${fmt(w.min)} / ${fmt(w.median)} | ${fmt(c.min)} / ${fmt(c.median)}${resolve} | ${added} | ${fmt(m.rank[0] / np, 1)} | ${fmt(m.rank[1] / 1024 / np, 1)} | ${m.job[0]} | ${fmt(m.job[1] / 1024, 1)} |`,
    );
  }
}

// The launcher's own start, without MPI: 20 starts of /bin/true per measurement.
const starts = 20;
const loop = (cmd: string) => ['-c', `i=0; while [ $i -lt ${starts} ]; do ${cmd} || exit 1; i=$((i+1)); done`];
const startDir = join(dir, 'starts');
const q = (s: string) => `'${s}'`;
const launchers: Record<string, string> = {
  'true, runtime preloaded (the floor)': `LD_PRELOAD=${q(libPath)} HYPROF_RAW_DIR=${q(startDir)} HYPROF_RESOLVE=0 /bin/true`,
  'hyprof-exec /bin/true': `HYPROF_DIR=${q(startDir)} ${q(execLauncher)} /bin/true`,
  'hyprof run -- /bin/true': `${q(node)} ${q(cliPath)} run --dir ${q(startDir)} -- /bin/true 2>/dev/null`,
};
spawnSync('mkdir', ['-p', startDir]);
interleave(Object.keys(launchers), rounds * 2, (name) => {
  const r = measureCommand('sh', loop(launchers[name]), process.env, name);
  samples.add(`start ${name} wall`, (r.wall / starts) * 1000);
  samples.add(`start ${name} cpu`, (r.cpu / starts) * 1000);
});
console.log('\n| one start | wall ms (min / median) | CPU ms (min / median) |');
console.log('|---|---|---|');
for (const name of Object.keys(launchers)) {
  const w = samples.get(`start ${name} wall`);
  const c = samples.get(`start ${name} cpu`);
  console.log(`| ${name} | ${fmt(w.min, 1)} / ${fmt(w.median, 1)} | ${fmt(c.min, 1)} / ${fmt(c.median, 1)} |`);
}
console.log(`\n# ${conditions()}`);
