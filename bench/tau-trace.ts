/**
 * bench/tau-trace: TAU's own tracing (TAU_TRACE=1) side by side with hyprof's (HYPROF_TRACE=1), the peer
 * issue 27 names for cost and bytes per event. One source (bench/tau/tau-trace-cost.c) instrumented
 * with TAU's API, a loop of TAU_PROFILE_START/STOP pairs of one short timer, built once against TAU
 * (its Makefile.tau's TAU_INCLUDE, TAU_DEFS and TAU_LIBS) and once against hyprof (hyprof's TAU.h,
 * docs/tau-api.md). Six configurations, interleaved round by round: TAU untraced, TAU traced (which
 * writes no profile), TAU traced with its profile (TAU_PROFILE=1: what hyprof's traced run writes), TAU's
 * lighter timers (TAU_LITE=1, untraced: its cheapest pair), hyprof untraced, hyprof traced; every run
 * also times the empty loop and two rdtsc (the floors, same run).
 *  1. CPU (the thread's own clock) and wall ns per enter/leave pair, min and median;
 *  2. callgrind's instructions per pair in each configuration (the difference of two runs of N and
 *     2N pairs, so start-up, exit and the final writes cancel out);
 *  3. bytes per event on disk: TAU's .trc + .edf, TAU's trace converted to OTF2 by TAU's tau2otf2
 *     (when the TAU given has it), hyprof's raw .trace and the OTF2 archive its resolve writes.
 * TAU is not part of the project: build it with bench/tau/build-tau.sh. Where TAU is absent, the
 * benchmark says so on one line and measures hyprof's side alone.
 * Throttling is off on both sides (TAU_THROTTLE=0, HYPROF_THROTTLE=0): both throttle a timer of a
 * million short calls by default.
 * Run: node dist/bench/tau-trace.js [pairs] [rounds]   (default 1,000,000 7)
 *      TAU_MAKEFILE=<prefix>/x86_64/lib/Makefile.tau (default /opt/tau-trace/x86_64/lib/Makefile.tau)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveStep } from '../src/run/resolve-step.js';
import { compileC, repoRoot, tmpDir } from '../test/helpers/native.js';
import { Samples, alignFlags, conditions, fmt, interleave, measureCommand } from './lib.js';

const pairs = Number(process.argv[2] ?? 1_000_000);
const rounds = Number(process.argv[3] ?? 7);
const tauMakefile = process.env.TAU_MAKEFILE ?? '/opt/tau-trace/x86_64/lib/Makefile.tau';
const work = tmpDir('bench-tau-trace');
const source = join(repoRoot, 'bench', 'tau', 'tau-trace-cost.c');
const cflags = ['-O2', '-g', ...alignFlags];
const before = conditions();

/** TAU's compile and link flags, read from its Makefile.tau as TAU's own example Makefiles read them
 * (TAU_CXXLIBS too: libtau.a is C++, and this C program is linked by gcc, not TAU_CXX). */
function tauFlags(makefile: string): { cflags: string[]; libs: string[] } | string {
  if (!existsSync(makefile)) return `${makefile} not found`;
  const probe = join(work, 'tau-flags.mk');
  writeFileSync(probe, `include ${makefile}\ncflags:\n\t@echo $(TAU_INCLUDE) $(TAU_DEFS)\nlibs:\n\t@echo $(TAU_LIBS) $(TAU_CXXLIBS)\n`);
  const get = (target: string) => spawnSync('make', ['-s', '-f', probe, target], { encoding: 'utf8' });
  const c = get('cflags');
  const l = get('libs');
  if (c.status !== 0 || l.status !== 0) return `make could not read ${makefile}: ${c.stderr}${l.stderr}`.trim();
  const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);
  return { cflags: words(c.stdout), libs: words(l.stdout) };
}

// ---- the two builds ----
const flags = tauFlags(tauMakefile);
let tauExe: string | undefined;
if (typeof flags === 'string') {
  console.log(`TAU is absent (${flags}; build it with bench/tau/build-tau.sh, or set TAU_MAKEFILE): measuring hyprof's side alone`);
} else {
  // compileC puts hyprof's include directory on the path; TAU's goes first, so TAU.h is TAU's.
  tauExe = compileC('tau-trace-cost-tau', [source], { cflags: [...cflags, ...flags.cflags], link: false, ldflags: flags.libs, outDir: work });
}
const hyprofExe = compileC('tau-trace-cost-hyprof', [source], { cflags, outDir: work });
const tauBin = join(dirname(tauMakefile), '..', 'bin');
const tau2otf2 = tauExe && existsSync(join(tauBin, 'tau2otf2')) ? join(tauBin, 'tau2otf2') : undefined;

// Each run writes into a fresh directory: TAU's profile and trace (PROFILEDIR, TRACEDIR), hyprof's raw files.
const out = join(work, 'out');
const fresh = () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
};
// No variable of one tool reaches the other: hyprof reads TAU's names too (TAU_TRACE among them).
const plain = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TAU_|HYPROF_|PROFILEDIR$|TRACEDIR$)/.test(k)));
const tauEnv = { ...plain, TAU_THROTTLE: '0', PROFILEDIR: out, TRACEDIR: out };
const hyprofEnv = { ...plain, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0', HYPROF_RAW_DIR: out };

interface Config {
  name: string;
  exe: string;
  env: NodeJS.ProcessEnv;
}
const configs: Config[] = [
  ...(tauExe
    ? [
        { name: 'TAU, untraced', exe: tauExe, env: { ...tauEnv, TAU_TRACE: '0' } },
        { name: 'TAU, TAU_TRACE=1', exe: tauExe, env: { ...tauEnv, TAU_TRACE: '1' } },
        // TAU_TRACE=1 turns TAU's profile off; hyprof's traced run writes both, as TAU does with TAU_PROFILE=1.
        { name: 'TAU, TAU_TRACE=1 TAU_PROFILE=1', exe: tauExe, env: { ...tauEnv, TAU_TRACE: '1', TAU_PROFILE: '1' } },
        // TAU's lighter timers (TAU_LITE=1: a shorter start/stop path), untraced: its cheapest pair, for reference.
        { name: 'TAU, TAU_LITE=1', exe: tauExe, env: { ...tauEnv, TAU_TRACE: '0', TAU_LITE: '1' } },
      ]
    : []),
  { name: 'hyprof, untraced', exe: hyprofExe, env: hyprofEnv },
  { name: 'hyprof, HYPROF_TRACE=1', exe: hyprofExe, env: { ...hyprofEnv, HYPROF_TRACE: '1' } },
];

const config = (name: string): Config => configs.find((c) => c.name === name)!;

// ---- 1. the pair, interleaved ----
const samples = new Samples();
interleave(configs, rounds, (c, round) => {
  fresh();
  const { stdout } = measureCommand(c.exe, ['pairs', String(pairs), String(round)], c.env, `tau-trace-cost (${c.name})`);
  for (const line of stdout.trim().split('\n')) {
    const [name, cpu, wall] = line.split(' ');
    samples.add(`${c.name}|${name}|cpu`, Number(cpu));
    samples.add(`${c.name}|${name}|wall`, Number(wall));
  }
});

// ---- 2. callgrind ----
function callgrindIr(c: Config, n: number): number {
  fresh();
  const file = join(work, 'callgrind.out');
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${file}`, c.exe, 'pair', String(n)], { env: c.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind of ${c.name} failed: ${r.stderr}`);
  const m = /Collected : (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no instruction count from callgrind (${c.name}): ${r.stderr}`);
  return Number(m[1]);
}
const cgPairs = 200_000;
const ir = new Map(configs.map((c) => [c.name, (callgrindIr(c, 2 * cgPairs) - callgrindIr(c, cgPairs)) / cgPairs]));

// ---- 3. bytes per event ----
const sizePairs = 200_000;
const events = 2 * sizePairs + 2; // each pair's enter and leave, and the enter and leave of the run's top timer
const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(join(p, f)), 0) : statSync(p).size);
/** Enter and leave records in an OTF2 archive, as OTF2's own otf2-print lists them. */
function otf2Events(anchor: string): number {
  const r = spawnSync('sh', ['-c', 'otf2-print "$1" | grep -c -E "^(ENTER|LEAVE) "', 'sh', anchor], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}
interface Size {
  form: string;
  bytes: number;
  note: string;
}
const sizes: Size[] = [];
if (tauExe) {
  fresh();
  measureCommand(tauExe, ['pair', String(sizePairs)], config('TAU, TAU_TRACE=1').env, 'tau-trace-cost pair (TAU_TRACE=1)');
  const files = readdirSync(out);
  const trc = files.find((f) => f.endsWith('.trc'));
  const edf = files.find((f) => f.endsWith('.edf'));
  if (!trc || !edf) throw new Error(`TAU_TRACE=1 wrote no .trc and .edf (${files.join(', ')})`);
  const trcBytes = statSync(join(out, trc)).size;
  const edfBytes = statSync(join(out, edf)).size;
  sizes.push({ form: `TAU's trace (${trc} + ${edf})`, bytes: trcBytes + edfBytes, note: `${trcBytes / 24} records of 24 bytes; .edf ${edfBytes} bytes` });
  if (tau2otf2) {
    const conv = join(work, 'tau-otf2');
    rmSync(conv, { recursive: true, force: true });
    mkdirSync(conv);
    // tau2otf2 writes the archive <name>.otf2, <name>.def, <name>/ into the current directory.
    const r = spawnSync(tau2otf2, [join(out, trc), join(out, edf), 'tau'], { cwd: conv, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tau2otf2 failed: ${r.stdout}${r.stderr}`);
    const anchor = readdirSync(conv).find((f) => f.endsWith('.otf2'));
    if (!anchor) throw new Error(`tau2otf2 wrote no .otf2 anchor in ${conv}`);
    sizes.push({ form: "TAU's trace through TAU's tau2otf2 (OTF2 archive: anchor, .def, directory)", bytes: du(conv), note: `${otf2Events(join(conv, anchor))} enter/leave events in otf2-print` });
  }
}
fresh();
measureCommand(hyprofExe, ['pair', String(sizePairs)], config('hyprof, HYPROF_TRACE=1').env, 'tau-trace-cost pair (HYPROF_TRACE=1)');
const traceFile = readdirSync(out).find((f) => f.endsWith('.trace'));
if (!traceFile) throw new Error(`HYPROF_TRACE=1 wrote no .trace (${readdirSync(out).join(', ')})`);
sizes.push({ form: "hyprof's trace file (runtime)", bytes: statSync(join(out, traceFile)).size, note: '16-byte records in blocks of 64 Ki, definitions once' });
const prof = join(work, 'prof');
rmSync(prof, { recursive: true, force: true });
// The resolve as `hyprof resolve <raw directory>` runs it, but told that these files are the whole run
// (allRanks): TAU_PROFILE_SET_NODE(0) marks the process as a numbered node, and the CLI's resolve then
// leaves a numbered node's trace to "a resolve of the whole run" and writes no archive.
const rawFiles = readdirSync(out).filter((f) => f.endsWith('.raw')).map((f) => join(out, f));
const resolved = await resolveStep(rawFiles, prof, { allRanks: true });
if (!resolved.trace) throw new Error(`hyprof's resolve wrote no OTF2 archive: ${resolved.warnings.join('; ')}`);
const otf2Bytes = du(join(prof, 'traces')) + du(join(prof, 'traces.def')) + du(join(prof, 'traces.otf2'));
sizes.push({ form: "hyprof's OTF2 archive (traces.otf2 + .def + traces/)", bytes: otf2Bytes, note: `${otf2Events(join(prof, 'traces.otf2'))} enter/leave events in otf2-print` });
rmSync(out, { recursive: true, force: true });

// ---- the tables ----
console.log(`machine: ${before}`);
console.log(`after: ${conditions()}\n`);
if (!tauExe) console.log("TAU is absent: hyprof's side alone.\n");
else if (!tau2otf2) console.log(`TAU's tau2otf2 is not in ${tauBin}: TAU's trace is not converted to OTF2.\n`);
console.log(`1. An enter/leave pair (TAU_PROFILE_START/STOP by handle), ${pairs} pairs per case, ${rounds} rounds interleaved; ns per pair (CPU: the thread's own):\n`);
console.log('| configuration | loop | CPU min | CPU median | wall min | wall median |');
console.log('|---|---|---|---|---|---|');
for (const c of configs) {
  for (const [loop, label] of [
    ['empty_loop', 'empty loop (floor)'],
    ['rdtsc_x2', 'two rdtsc (floor)'],
    ['pair', 'pair'],
  ]) {
    const cpu = samples.get(`${c.name}|${loop}|cpu`);
    const wall = samples.get(`${c.name}|${loop}|wall`);
    console.log(`| ${c.name} | ${label} | ${fmt(cpu.min)} | ${fmt(cpu.median)} | ${fmt(wall.min)} | ${fmt(wall.median)} |`);
  }
}
console.log('\n| configuration | pair less the empty loop, CPU min (ns) | callgrind instructions per pair |');
console.log('|---|---|---|');
for (const c of configs) {
  const net = samples.get(`${c.name}|pair|cpu`).min - samples.get(`${c.name}|empty_loop|cpu`).min;
  console.log(`| ${c.name} | ${fmt(net)} | ${fmt(ir.get(c.name)!, 0)} |`);
}
console.log(`\n2. Bytes on disk, ${sizePairs} pairs (${events} enter/leave events, the run's top timer's included):\n`);
console.log('| form | bytes | bytes per event | |');
console.log('|---|---|---|---|');
for (const s of sizes) console.log(`| ${s.form} | ${s.bytes} | ${fmt(s.bytes / events)} | ${s.note} |`);
rmSync(work, { recursive: true, force: true });
