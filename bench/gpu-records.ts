/**
 * bench/gpu-records: what the CUDA layer's processing costs the CPU per GPU record (kernel, copy,
 * synchronisation) that CUPTI hands over, in instructions (valgrind --tool=callgrind, which a loaded
 * machine does not disturb). The recorded fixture (test/native/cuda_fixture.c, `many N`: N kernels
 * and N/2 waits, more intervals than the layer keeps) is run with 40,000 and with 20,000 kernels;
 * the difference, divided by the 30,000 records in between, is the marginal cost per record:
 *  - against a stand-in layer whose entry points do nothing (the fixture's own cost of filling
 *    CUPTI's structures: the floor);
 *  - the layer untraced (aggregates, launch correlation, the busy and waiting intervals);
 *  - the layer traced (HYPROF_TRACE=1: each record also into the trace buffer), with the trace
 *    file's bytes per record.
 * CUPTI's own cost (its buffers, its callbacks on the launch API) needs a GPU: scripts/device-check.sh
 * states the overhead per kernel launch there. Run: node dist/bench/gpu-records.js   (needs valgrind
 * and CUDA's headers)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileC, libDir, testNativeDir } from '../test/helpers/native.js';

const cuda = process.env.CUDA_HOME ?? '/usr/local/cuda';
if (!existsSync(join(cuda, 'include', 'cupti.h')) || !existsSync(join(libDir, 'libhyprof_cuda.so'))) {
  console.error(`gpu-records: needs CUDA's headers (${cuda}/include/cupti.h) and the CUDA layer built (${libDir}/libhyprof_cuda.so)`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'hyprof-bench-gpu-'));
const stubDir = join(work, 'stub');
mkdirSync(stubDir);
{
  const src = join(stubDir, 'stub.c');
  writeFileSync(src, `#include <stdint.h>
int hyprof_cuda_fixture_register(void) { return 1; }
void hyprof_cuda_fixture_launch(uint32_t corr) { (void)corr; }
void hyprof_cuda_fixture_take(const void *record, int64_t offset) { (void)record; (void)offset; }
`);
  // Its own name: the fixture's run path holds the real layer's directory too.
  const r = spawnSync('cc', ['-O2', '-shared', '-fPIC', src, '-o', join(stubDir, 'libhyprof_cuda_stub.so')], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
}
const build = (name: string, layerDir: string, lib: string) =>
  compileC(name, [join(testNativeDir, 'cuda_fixture.c')], {
    cflags: ['-O2', '-g', `-I${cuda}/include`],
    ldflags: [`-L${layerDir}`, `-l${lib}`, `-Wl,-rpath,${layerDir}`],
    outDir: work,
  });
const exes = { stub: build('fixture-stub', stubDir, 'hyprof_cuda_stub'), layer: build('fixture-layer', libDir, 'hyprof_cuda') };

const callgrind = (exe: string, n: number, env: NodeJS.ProcessEnv): number => {
  const out = join(work, 'cg.out');
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, exe, 'many', String(n)], {
    encoding: 'utf8',
    env: { ...process.env, HYPROF_SAMPLING: '0', HYPROF_RESOLVE: '0', ...env },
  });
  if (r.status !== 0) throw new Error(`valgrind ${exe} many ${n}: ${r.stderr.slice(-500)}`);
  return Number(/Collected : (\d+)/.exec(r.stderr)?.[1] ?? NaN);
};
const traceBytes = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.trace')).reduce((s, f) => s + statSync(join(dir, f)).size, 0);

const records = 20000 + 10000;
const rows: Array<[string, number, string]> = [];
let floor = 0;
for (const [name, exe, traced] of [
  ['stand-in layer (entry points do nothing): the floor', exes.stub, false],
  ['the CUDA layer', exes.layer, false],
  ['the CUDA layer, traced (HYPROF_TRACE=1)', exes.layer, true],
] as const) {
  const dirs = [40000, 20000].map((n) => join(work, `raw-${rows.length}-${n}`));
  for (const d of dirs) mkdirSync(d);
  const env = (i: number): NodeJS.ProcessEnv => ({ HYPROF_RAW_DIR: dirs[i], HYPROF_DIR: dirs[i], ...(traced ? { HYPROF_TRACE: '1' } : {}) });
  const per = (callgrind(exe, 40000, env(0)) - callgrind(exe, 20000, env(1))) / records;
  if (rows.length === 0) floor = per;
  const bytes = traced ? ` (trace file: ${((traceBytes(dirs[0]) - traceBytes(dirs[1])) / records).toFixed(1)} bytes per record)` : '';
  rows.push([name, per, rows.length === 0 ? '' : `+${(per - floor).toFixed(0)}${bytes}`]);
}
console.log(`instructions per GPU record handed to the CUDA layer (callgrind; the fixture's many 40000 - many 20000 = ${records} records):`);
console.log('| configuration | instructions per record | over the floor |');
console.log('|---|---|---|');
for (const [name, per, over] of rows) console.log(`| ${name} | ${per.toFixed(0)} | ${over} |`);
