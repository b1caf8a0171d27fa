/**
 * Many events: a real program (test/native/many_events.c) enters N dynamic phases "Iteration <i>",
 * each with a timer "work" inside (2N contexts), and writes its raw file; then `hyprof resolve`,
 * `hyprof report`, `hyprof report --callpath` and `hyprof export` (collapsed, speedscope, pprof) run on it. For
 * each step: wall time, CPU time (user + system) and peak memory (GNU time's maximum resident set),
 * min and median over the rounds, with the sizes of the raw file and the profile.
 *
 *   node dist/bench/many-events.js [N ...] [--rounds R]      (default: 100000 1000000, 1 round)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'dist', 'src', 'cli', 'main.js');
const lib = join(root, 'build', 'Release');

interface Measure {
  wall: number;
  cpu: number;
  peakMb: number;
}

/** Run a command under GNU time; its wall, user + system time and maximum resident set. */
function timed(cmd: string[], env: NodeJS.ProcessEnv = process.env): Measure {
  const r = spawnSync('/usr/bin/time', ['-f', 'HYPROF_BENCH %e %U %S %M', ...cmd], { env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const m = /HYPROF_BENCH ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${cmd.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), peakMb: Number(m[4]) / 1024 };
}

function dirSizeMb(dir: string): number {
  let bytes = 0;
  for (const f of readdirSync(dir)) {
    const st = statSync(join(dir, f));
    bytes += st.isDirectory() ? dirSizeMb(join(dir, f)) * 1048576 : st.size;
  }
  return bytes / 1048576;
}

const median = (v: number[]): number => [...v].sort((a, b) => a - b)[v.length >> 1];
const fmt = (v: number[], digits: number): string => `${Math.min(...v).toFixed(digits)} / ${median(v).toFixed(digits)}`;

function main(): void {
  const args = process.argv.slice(2);
  const ri = args.indexOf('--rounds');
  const rounds = ri >= 0 ? Number(args[ri + 1]) : 1;
  const sizes = args.filter((a, i) => /^\d+$/.test(a) && (ri < 0 || i !== ri + 1)).map(Number);
  if (sizes.length === 0) sizes.push(100_000, 1_000_000);
  const work = mkdtempSync(join(tmpdir(), 'hyprof-bench-many-'));
  const exe = join(work, 'many_events');
  const cc = spawnSync('gcc', ['-O2', '-g', `-I${join(root, 'native', 'include')}`, join(root, 'test', 'native', 'many_events.c'), '-o', exe, `-L${lib}`, `-Wl,-rpath,${lib}`, '-lhyprof'], { encoding: 'utf8' });
  if (cc.status !== 0) throw new Error(cc.stderr);
  const steps = ['program (probes, raw file)', 'hyprof resolve', 'hyprof report', 'hyprof report --callpath', 'hyprof export --format collapsed', 'hyprof export --format speedscope', 'hyprof export --format pprof'] as const;
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}; ${rounds} round(s); min / median`);
  for (const n of sizes) {
    const got = new Map<string, Measure[]>(steps.map((s) => [s, []]));
    let rawMb = 0;
    let profileMb = 0;
    for (let r = 0; r < rounds; r++) {
      const dir = join(work, `n${n}-r${r}`);
      const raw = join(dir, 'raw');
      const prof = join(dir, 'prof');
      mkdirSync(raw, { recursive: true });
      const env = { ...process.env, HYPROF_RAW_DIR: raw, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0' };
      got.get(steps[0])!.push(timed([exe, String(n), 'phases'], env));
      rawMb = dirSizeMb(raw);
      got.get(steps[1])!.push(timed([process.execPath, cli, 'resolve', raw, '-o', prof]));
      profileMb = dirSizeMb(prof);
      got.get(steps[2])!.push(timed(['sh', '-c', `exec "$0" "$1" report "$2" > /dev/null`, process.execPath, cli, prof]));
      got.get(steps[3])!.push(timed(['sh', '-c', `exec "$0" "$1" report --callpath "$2" > /dev/null`, process.execPath, cli, prof]));
      for (const [i, format] of [[4, 'collapsed'], [5, 'speedscope'], [6, 'pprof']] as const) {
        got.get(steps[i])!.push(timed([process.execPath, cli, 'export', prof, '--format', format, '-o', join(dir, `out.${format}`)]));
      }
      rmSync(dir, { recursive: true, force: true });
    }
    console.log(`\n${n} dynamic phases (${2 * n} contexts): raw file ${rawMb.toFixed(0)} MB, profile ${profileMb.toFixed(0)} MB\n`);
    console.log('| step | wall s | CPU s | peak memory MB |');
    console.log('|---|---|---|---|');
    for (const s of steps) {
      const m = got.get(s)!;
      console.log(`| ${s} | ${fmt(m.map((x) => x.wall), 1)} | ${fmt(m.map((x) => x.cpu), 1)} | ${fmt(m.map((x) => x.peakMb), 0)} |`);
    }
  }
  rmSync(work, { recursive: true, force: true });
}

main();
