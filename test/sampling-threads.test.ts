/**
 * Sampling across threads and processes: every thread samples itself, a forked child samples on its
 * own, samples inside the runtime are dropped and counted, a program's own SIGPROF handler keeps
 * working while hyprof samples on the same signal, a SIGTERM dump keeps the samples, and the memory
 * map names every loaded object.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, libPath, run, tmpDir } from './helpers/native.js';
import { INFO_FORKED_CHILD, INFO_FROM_SIGNAL } from '../src/samples/raw-model.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { attr, contextPath, drop, frames, runSampled, symbolize, totalSamples } from './sampling-support.js';

test('8 threads each get their own samples, under their own region, ending at the thread function', async (t) => {
  const exe = compileC('sample_threads', ['sample_threads.c']);
  const { result, raws } = await runSampled(exe, ['8']);
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  const name = symbolize(p);
  const workers = p.threads.filter((th) => th.index > 0);
  t.is(workers.length, 8);
  for (const th of workers) {
    const mine = th.samples.filter((s) => frames(name, s).includes('thread_spin'));
    const n = mine.reduce((k, s) => k + s.count, 0);
    t.true(n > 10, `thread ${th.index}: ${n} samples in thread_spin`);
    for (const s of mine) {
      t.deepEqual(contextPath(p, s.context), ['.TAU application', 'work']);
      t.is(frames(name, s).at(-1), 'body');
    }
    t.is(attr(p, `TAU_EBS_SAMPLES_TAKEN_${th.index}`), String(th.samples.reduce((k, s) => k + s.count, 0) + th.drops.reduce((k, [r, c]) => k + (r === 'unwind_failed' || r === 'unwind_truncated' || r === 'no_thread_state' ? 0 : c), 0)));
  }
  t.false(p.threads[0]!.samples.some((s) => frames(name, s).includes('thread_spin')), 'main thread holds a worker sample');
});

test('a forked child samples itself and reports none of its parent samples', async (t) => {
  const exe = compileC('sample_fork', ['sample_fork.c']);
  const { result, raws } = await runSampled(exe);
  t.is(result.code, 0, result.stderr);
  t.is(raws.length, 2);
  const child = raws.find((r) => (r.info.flags & INFO_FORKED_CHILD) !== 0)!;
  const parent = raws.find((r) => (r.info.flags & INFO_FORKED_CHILD) === 0)!;
  t.truthy(child);
  t.truthy(parent);
  const cname = symbolize(child);
  const cs = child.threads[0]!.samples;
  const inChild = cs.filter((s) => frames(cname, s).includes('child_spin')).reduce((k, s) => k + s.count, 0);
  t.true(inChild > 15, `${inChild} child samples`);
  t.false(cs.some((s) => frames(cname, s).includes('parent_spin')), 'the child kept its parent samples');
  for (const s of cs.filter((s) => frames(cname, s).includes('child_spin')))
    t.deepEqual(contextPath(child, s.context), ['.TAU application', 'parent_work', 'child_work']);
  const pname = symbolize(parent);
  t.false(parent.threads[0]!.samples.some((s) => frames(pname, s).includes('child_spin')));
  t.true(totalSamples(parent.threads[0]!) > 15);
});

test('samples landing inside probes are dropped and counted as in_tool (TAU_EBS_SAMPLES_DROPPED_TAU)', async (t) => {
  const exe = compileC('sample_probes', ['sample_probes.c']);
  const { result, raws } = await runSampled(exe, [], { HYPROF_PERIOD_US: '200' });
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  const main = p.threads[0]!;
  const inTool = drop(main, 'in_tool');
  t.true(inTool > 10, `${inTool} in-tool drops`);
  t.is(attr(p, 'TAU_EBS_SAMPLES_DROPPED_TAU_0'), String(inTool));
  t.is(attr(p, 'TAU_EBS_SAMPLES_DROPPED_SUSPENDED_0'), '0');
  const taken = Number(attr(p, 'TAU_EBS_SAMPLES_TAKEN_0'));
  t.is(taken, totalSamples(main) + inTool + drop(main, 'table_full') + drop(main, 'after_stop'));
  // most samples that land in the runtime are dropped: recorded ones there are only the few
  // instructions of a probe before / after its in_tool window
  const lib = p.maps.filter((m) => m.path.endsWith('libhyprof.so'));
  t.true(lib.length > 0);
  const inLib = main.samples
    .filter((s) => lib.some((m) => s.pcs[0]! >= m.start && s.pcs[0]! < m.end))
    .reduce((k, s) => k + s.count, 0);
  t.true(inLib < inTool, `${inLib} samples recorded inside the runtime, ${inTool} dropped`);
});

for (const mode of ['sigaction', 'signal']) {
  test(`a program with its own SIGPROF handler (${mode} + setitimer) still gets its signals`, async (t) => {
    const exe = compileC('sample_ownprof', ['sample_ownprof.c']);
    const { result, raws } = await runSampled(exe, [mode]);
    t.is(result.code, 0, result.stdout + result.stderr);
    const got = Number(/program signals (\d+)/.exec(result.stdout)?.[1]);
    t.true(got >= 40, `the program got ${got} of its ~60 SIGPROF signals`);
    const p = raws[0]!;
    const name = symbolize(p);
    const busy = p.threads[0]!.samples.filter((s) => frames(name, s).includes('busy'));
    t.true(busy.reduce((k, s) => k + s.count, 0) > 20, 'hyprof kept sampling');
  });
}

test('killed by SIGTERM while sampling: the raw file still holds the samples (dump from the signal handler)', async (t) => {
  const exe = compileC('sample_term', ['sample_term.c']);
  const dir = tmpDir('sampling-term');
  const result = await run(exe, [], {
    env: { HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '200', HYPROF_DIR: dir, HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0' },
    onSpawn: (child) => {
      child.stdout!.once('data', () => setTimeout(() => child.kill('SIGTERM'), 800));
    },
  });
  t.is(result.signal, 'SIGTERM');
  const files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(files.length, 1);
  const p = readRawFile(join(dir, files[0]!));
  t.true((p.info.flags & INFO_FROM_SIGNAL) !== 0);
  const name = symbolize(p);
  const n = p.threads[0]!.samples
    .filter((s) => frames(name, s).join(' < ') === 'endless < main' && contextPath(p, s.context).at(-1) === 'forever')
    .reduce((k, s) => k + s.count, 0);
  t.true(n > 15, `${n} samples endless < main under forever`);
});

test('MAPS: the executable by its real path, dlopened libraries, the vDSO, build ids as readelf shows them', async (t) => {
  const exe = compileC('sample_dlopen', ['sample_dlopen.c'], { link: false, ldflags: ['-ldl', '-Wl,--build-id=sha1'] });
  const { result, raws } = await runSampled(exe, [libPath]);
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  const buildId = (file: string) => /Build ID: ([0-9a-f]+)/.exec(spawnSync('readelf', ['-n', file], { encoding: 'utf8' }).stdout)?.[1];
  const exeMaps = p.maps.filter((m) => m.path === realpathSync(exe));
  t.true(exeMaps.length >= 2, 'one entry per PT_LOAD segment of the executable');
  t.is(exeMaps[0]!.buildId, buildId(exe) ?? 'readelf shows no build id');
  t.true(exeMaps.every((m) => m.bias === exeMaps[0]!.bias && m.start < m.end && m.start >= m.bias));
  const lib = p.maps.filter((m) => m.path === realpathSync(libPath));
  t.true(lib.length >= 2, 'the dlopened runtime is in the map');
  t.is(lib[0]!.buildId, buildId(libPath) ?? 'readelf shows no build id');
  t.true(p.maps.some((m) => m.path === '[vdso]'));
  t.true(p.maps.some((m) => /\/libc\.so\.6$/.test(m.path) && m.buildId.length === 40));
});

test('dlopen by bare name through the program\'s RUNPATH works under hyprof; the plugin is in MAPS and its samples resolve', async (t) => {
  const dir = tmpDir('runpath');
  const plug = compileC('libplug.so', ['sample_plug.c'], { link: false, cflags: ['-O1', '-g', '-shared', '-fPIC'], outDir: dir });
  const exe = compileC('sample_runpath', ['sample_runpath.c'], { link: false, ldflags: ['-ldl', `-Wl,-rpath,${dir}`] });
  const plain = await run(exe, []);
  t.is(plain.stdout.trim(), 'loaded', plain.stderr);
  const { result, raws } = await runSampled(exe, [], { LD_PRELOAD: libPath });
  t.is(result.code, 0, result.stderr);
  t.is(result.stdout.trim(), 'loaded', 'the plugin loads with libhyprof preloaded');
  const p = raws[0]!;
  const lib = p.maps.filter((m) => m.path === realpathSync(plug));
  t.true(lib.length >= 2, 'the dlopened plugin is in the map');
  const name = symbolize(p);
  // main thread, right after dlopen: innermost frame named even when the unwind was partial
  const main = p.threads[0]!.samples.filter((s) => frames(name, s)[0] === 'plug_spin');
  t.true(main.reduce((k, s) => k + s.count, 0) > 10, 'main-thread samples in the plugin resolve by name');
  // the thread started after the load: the map was refreshed at its start, stacks are whole
  const worker = p.threads.find((th) => th.index > 0)!;
  const whole = worker.samples.filter((s) => frames(name, s).includes('plug_spin'));
  t.true(whole.reduce((k, s) => k + s.count, 0) > 15);
  for (const s of whole) t.deepEqual(frames(name, s).slice(-3), ['plug_spin', 'plug_work', 'body'], frames(name, s).join(' < '));
});

test('2,000 dlopen/dlclose cycles while sampling: the replaced memory-map snapshots are unmapped, memory stays flat', async (t) => {
  const dir = tmpDir('dlcycles');
  const plug = compileC('libplug.so', ['sample_plug.c'], { link: false, cflags: ['-O1', '-g', '-shared', '-fPIC'], outDir: dir });
  const exe = compileC('dl_cycles', ['dl_cycles.c'], { link: false, ldflags: ['-ldl'] });
  const growth = (stdout: string): number => {
    const m = /cycles 2000 rss_kb (\d+) (\d+)/.exec(stdout);
    if (!m) throw new Error(`no figures in: ${stdout}`);
    return Number(m[2]) - Number(m[1]);
  };
  const plain = await run(exe, [plug, '2000']);
  t.is(plain.code, 0, plain.stderr);
  const { result, raws } = await runSampled(exe, [plug, '2000'], { LD_PRELOAD: libPath, HYPROF_PERIOD_US: '200' });
  t.is(result.code, 0, result.stderr);
  t.is(raws.length, 1);
  t.log(`resident memory growth over 2,000 cycles: ${growth(plain.stdout)} kB without hyprof, ${growth(result.stdout)} kB sampled`);
  // Each snapshot kept ~8 KB resident: 2,000 cycles grew ~16 MB before they were unmapped.
  t.true(growth(result.stdout) < 2048, `${growth(result.stdout)} kB`);
  t.true(totalSamples(raws[0]!.threads[0]!) > 0);
});

test('exit while threads take perf samples: stopping their events never kills the process with SIGPROF', async (t) => {
  // stop_all (exit dump) and each thread's overflow signals race; before the fix about half the
  // runs died of a late overflow signal forwarded to SIGPROF's default action
  const exe = compileC('sample_stop_race', ['sample_stop_race.c'], { link: false });
  for (let i = 0; i < 12; i++) {
    const { result, raws } = await runSampled(exe, ['4'], { LD_PRELOAD: libPath, HYPROF_SAMPLE_SOURCE: 'task-clock', HYPROF_PERIOD_US: '10' });
    t.is(result.signal, null, `run ${i}: killed by ${result.signal}`);
    t.is(result.code, 0, result.stderr);
    t.is(raws.length, 1);
  }
});

test('samples of code running on a sigaltstack keep only their PC and are counted unwind_failed', async (t) => {
  const exe = compileC('sample_altstack', ['sample_altstack.c']);
  const { result, raws } = await runSampled(exe, [], { HYPROF_PERIOD_US: '500' });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /altstack done/);
  const p = raws[0]!;
  const name = symbolize(p);
  const th = p.threads[0]!;
  const onAlt = th.samples.filter((s) => frames(name, s)[0] === 'alt_spin');
  const nAlt = onAlt.reduce((k, s) => k + s.count, 0);
  t.true(nAlt > 50, `${nAlt} samples in alt_spin`);
  for (const s of onAlt) t.is(s.pcs.length, 1, frames(name, s).join(' < '));
  t.true(drop(th, 'unwind_failed') >= nAlt);
  // on the ordinary stack, stacks are whole
  const onMain = th.samples.filter((s) => frames(name, s).includes('main_spin'));
  t.true(onMain.length > 0 && onMain.every((s) => frames(name, s).at(-1) === 'main'));
});

for (const mode of ['defer', 'nodefer']) {
  test(`the program's forwarded SIGPROF handler runs with its own mask (${mode}); ours blocks asynchronous signals only`, async (t) => {
    const exe = compileC('sample_fwdmask', ['sample_fwdmask.c']);
    const { result } = await runSampled(exe, [mode]);
    t.is(result.code, 0, result.stderr);
    const m = /got (\d+) bad_usr1 (\d+) bad_usr2 (\d+) bad_prof (\d+) handler_blocks usr1 (\d) alrm (\d) segv (\d) bus (\d)/.exec(result.stdout);
    t.truthy(m, result.stdout);
    const [got, usr1, usr2, prof, hUsr1, hAlrm, hSegv, hBus] = m!.slice(1).map(Number);
    t.true(got! >= 10, `the program got ${got} signals`);
    t.is(usr1, 0, 'SIGUSR1 (unblocked where interrupted) blocked in the program handler');
    t.is(usr2, 0, 'SIGUSR2 (its sa_mask) not blocked in the program handler');
    t.is(prof, 0, mode === 'nodefer' ? 'SIGPROF blocked despite SA_NODEFER' : 'SIGPROF not blocked in its own handler');
    t.deepEqual([hUsr1, hAlrm, hSegv, hBus], [1, 1, 0, 0], 'sampling handler mask');
  });
}
