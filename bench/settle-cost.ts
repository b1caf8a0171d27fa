/**
 * bench/settle-cost: the instructions one async region's settle time costs at its settlement
 * (hyprof_ext_settled: the user event "Settle time (us) : <region>", docs/node.md), beside a probe
 * pair (start + stop) of the same region, counted by callgrind, which the machine's load does not
 * blur: (Ir(3N) - Ir(N)) / 2N, so start-up and registration drop out.
 * Run: node dist/bench/settle-cost.js [N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileC, haveTool, repoRoot } from '../test/helpers/native.js';

const n = Number(process.argv[2] ?? 100_000);
if (!haveTool('valgrind')) {
  console.log('valgrind is not installed: no instruction counts');
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'hyprof-settle-cost-'));
const exe = compileC('settle-cost', [join(repoRoot, 'bench', 'settle-cost.c')], { outDir: dir, cflags: ['-O2', '-g', `-I${join(repoRoot, 'native')}`] });

/** Instructions of one run (the whole process). */
function instructions(count: number, what: string): number {
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.out')}`, exe, String(count), what], {
    encoding: 'utf8',
    env: { ...process.env, HYPROF_RESOLVE: '0', HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_THROTTLE: '0', HYPROF_SAMPLING: '0' },
  });
  if (r.status !== 0) throw new Error(`valgrind settle-cost: ${r.stderr.slice(-500)}`);
  return Number(/Collected : (\d+)/.exec(r.stderr)?.[1] ?? NaN);
}

console.log(`Instructions per operation (callgrind, (Ir(${3 * n}) - Ir(${n})) / ${2 * n}):`);
console.log('| operation | instructions |');
console.log('|---|---|');
for (const [what, label] of [
  ['settle', 'settle time at a settlement (hyprof_ext_settled)'],
  ['pair', 'probe pair of the region (hyprof_ext_start + hyprof_ext_stop), for scale'],
] as const) {
  const per = (instructions(3 * n, what) - instructions(n, what)) / (2 * n);
  console.log(`| ${label} | ${per.toFixed(1)} |`);
}
