/**
 * bench/node-cost-parts: where hyprof's CPU over plain node goes on a real Node program, part by
 * part, beside `node --cpu-prof`: each configuration takes one part away from hyprof as
 * `hyprof run -- node` starts it (bench/node-vs-cpuprof.ts), all interleaved, process CPU (wait4),
 * min and median. The resolve is not run (the raw files are left).
 *   - hyprof: the runtime preloaded, 1 kHz wall-clock sampling with complete stacks, the V8 part
 *     logging JIT code events, V8's own code log (run-node-jit.ts);
 *   - without V8's code log;
 *   - without unwinding (HYPROF_UNWIND=0: the sampled pc alone);
 *   - without `--interpreted-frames-native-stack` (interpreted functions then share one trampoline,
 *     and their frames cannot be named: a measure of the flag's cost only);
 *   - sampling once a second (HYPROF_PERIOD_US=1000000: the V8 part and the log at work, almost no
 *     samples);
 *   - without sampling (HYPROF_SAMPLING=0: the runtime and the thread preload, no V8 part, no log);
 *   - plain node with each V8 flag hyprof adds on its own (`--interpreted-frames-native-stack`, and
 *     `--no-compact-code-space`, which the V8 part sets once it logs code events).
 * `--compare`: plain node, `--cpu-prof` and hyprof only (more rounds in the same time).
 * Run: node dist/bench/node-cost-parts.js [rounds] [--compare] [-- node-args...] (default: the
 * transpiler of bench/node-programs)
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { nodeJitPlan } from '../src/run/run-node-jit.js';
import { asHyprofRun } from './node-run.js';
import { repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, measureCommand, pct, Samples } from './lib.js';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const rounds = Number(argv[0] && !argv[0].startsWith('--') ? argv[0] : 8);
const nodeArgs = dash >= 0 ? argv.slice(dash + 1) : [join(repoRoot, 'bench', 'node-programs', 'transpile.mjs')];
const node = process.execPath;
const dir = tmpDir('node-cost-parts');

const compare = argv.slice(0, dash >= 0 ? dash : argv.length).includes('--compare');
const all = [
  'plain node',
  'node --cpu-prof',
  'hyprof',
  'hyprof without V8 code log',
  'hyprof without unwinding',
  'hyprof without --interpreted-frames-native-stack',
  'hyprof sampling once a second',
  'hyprof without sampling',
  'plain node --interpreted-frames-native-stack',
  'plain node --no-compact-code-space',
];
const configs = compare ? all.slice(0, 3) : all;
const cpu = new Samples();
const wall = new Samples();

console.log(`workload: node ${nodeArgs.join(' ')}`);
console.log(`before: ${conditions()}`);
interleave(configs, rounds, (config, round) => {
  const base = { ...process.env, NODE_OPTIONS: '' };
  const raw = join(dir, `${config.replace(/\W+/g, '-')}-${round}`);
  rmSync(raw, { recursive: true, force: true });
  mkdirSync(raw, { recursive: true });
  let args = nodeArgs;
  let env: NodeJS.ProcessEnv = base;
  if (config === 'node --cpu-prof') args = ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', raw, ...nodeArgs];
  else if (config.startsWith('plain node ')) args = [config.slice('plain node '.length), ...nodeArgs];
  else if (config !== 'plain node') {
    const extra: Record<string, string> =
      config === 'hyprof without unwinding' ? { HYPROF_UNWIND: '0' }
      : config === 'hyprof without sampling' ? { HYPROF_SAMPLING: '0' }
      : config === 'hyprof sampling once a second' ? { HYPROF_PERIOD_US: '1000000' }
      : {};
    const plan = nodeJitPlan(base);
    // the V8 part's plan without the flag that gives each interpreted function a trampoline of its own
    if (config === 'hyprof without --interpreted-frames-native-stack') plan.flags = plan.flags.filter((f) => f !== '--interpreted-frames-native-stack');
    ({ env, args } = asHyprofRun({ ...base, ...extra }, raw, nodeArgs, {
      sampling: config !== 'hyprof without sampling',
      plan,
      v8Log: config !== 'hyprof without V8 code log',
    }));
  }
  const c = measureCommand(node, args, env, config);
  cpu.add(config, c.cpu);
  wall.add(config, c.wall);
});
console.log(`after: ${conditions()}`);
console.log(`${rounds} rounds, interleaved\n`);
const plain = cpu.get('plain node').median;
console.log('| configuration | CPU min | CPU median | CPU vs plain (median) | wall median |');
console.log('|---|---|---|---|---|');
for (const k of configs) {
  const c = cpu.get(k);
  console.log(`| ${k} | ${fmt(c.min)} s | ${fmt(c.median)} s | ${pct(c.median, plain)} | ${fmt(wall.get(k).median)} s |`);
}
