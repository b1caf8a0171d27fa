/**
 * bench/instrument: what a call of a tiny function costs when it is timed, against the same loop
 * uninstrumented, in one run with every configuration interleaved (CPU time of the whole process,
 * wait4; min and median over the rounds):
 *  - compiler instrumentation (-finstrument-functions, linked with -lhyprof): every call measured
 *    (TAU_THROTTLE=0), excluded by the select file at run time (one table look-up per call),
 *    excluded by gcc at compile time (-finstrument-functions-exclude-function-list), throttled
 *    (TAU's default rule);
 *  - a probe pair (hyprof_start_named / hyprof_stop_named, literal name) throttled (the default) and
 *    not (TAU_THROTTLE=0): issue 13's loop of 20 million tiny probed calls.
 * All builds -O2 with functions and loops on 64-byte boundaries.
 * Run: node dist/bench/instrument.js [calls] [rounds]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, repoRoot, tmpDir } from '../test/helpers/native.js';
import { alignFlags, conditions, fmt, interleave, measureCommand, Samples } from './lib.js';

const calls = Number(process.argv[2] ?? 20_000_000);
const rounds = Number(process.argv[3] ?? 7);
const dir = tmpDir('bench-instrument');
const src = [join(repoRoot, 'bench', 'instrument-calls.c')];
const base = ['-O2', '-g', ...alignFlags];
const plain = compileC('plain', src, { cflags: [...base, '-DHYPROF_NO_PROBES'], link: false, outDir: dir });
const probes = compileC('probes', src, { cflags: base, outDir: dir });
const inst = compileC('inst', src, { cflags: [...base, '-finstrument-functions'], outDir: dir });
const instGcc = compileC('inst-gcc-excl', src, { cflags: [...base, '-finstrument-functions', '-finstrument-functions-exclude-function-list=tiny'], outDir: dir });
const select = join(dir, 'select.tau');
writeFileSync(select, 'BEGIN_EXCLUDE_LIST\ntiny\nEND_EXCLUDE_LIST\n');

interface Config {
  name: string;
  exe: string;
  mode: 'func' | 'probe';
  env: Record<string, string>;
}
const configs: Config[] = [
  { name: 'uninstrumented', exe: plain, mode: 'func', env: {} },
  { name: 'compiler instrumentation, every call measured (TAU_THROTTLE=0)', exe: inst, mode: 'func', env: { TAU_THROTTLE: '0' } },
  { name: 'compiler instrumentation, excluded by the select file (run time)', exe: inst, mode: 'func', env: { HYPROF_SELECT_FILE: select } },
  { name: 'compiler instrumentation, excluded by gcc (compile time)', exe: instGcc, mode: 'func', env: {} },
  { name: 'compiler instrumentation, throttled (default rule)', exe: inst, mode: 'func', env: {} },
  { name: 'probe pair, every call measured (TAU_THROTTLE=0)', exe: probes, mode: 'probe', env: { TAU_THROTTLE: '0' } },
  { name: 'probe pair, throttled (default rule)', exe: probes, mode: 'probe', env: {} },
];

const cpu = new Samples();
const wall = new Samples();
const before = conditions();
interleave(configs, rounds, (c) => {
  const env = { ...process.env, HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: dir, HYPROF_SAMPLING: '0', ...c.env };
  const r = measureCommand(c.exe, [c.mode, String(calls)], env, c.name);
  cpu.add(c.name, r.cpu);
  wall.add(c.name, r.wall);
});
console.log(`${calls.toLocaleString('en')} calls, ${rounds} rounds interleaved; before: ${before}; after: ${conditions()}`);
console.log('');
console.log('| configuration | CPU s min | CPU s median | wall s median | ns per call over uninstrumented (CPU, min / median) | × uninstrumented (CPU median) |');
console.log('|---|---|---|---|---|---|');
const b = cpu.get('uninstrumented');
for (const c of configs) {
  const s = cpu.get(c.name);
  const per = (x: number, y: number) => fmt(((x - y) / calls) * 1e9, 1);
  console.log(`| ${c.name} | ${fmt(s.min, 3)} | ${fmt(s.median, 3)} | ${fmt(wall.get(c.name).median, 3)} | ${per(s.min, b.min)} / ${per(s.median, b.median)} | ${fmt(s.median / b.median, 2)} |`);
}
