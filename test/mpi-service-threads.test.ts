/**
 * Runtime service threads (native/sample/service.c): Open MPI's progress threads, which start in
 * libopen-pal and libpmix and wait in poll / epoll_wait, are sampled by their CPU time by default,
 * so they get almost no samples while the ranks' main threads keep theirs; HYPROF_SERVICE_THREADS=wall
 * samples them by the wall clock as before, `off` not at all; the metadata names them and why, and
 * stderr says it once per job. A plain pthread program, whose threads start in the program, is not
 * touched.
 */
import test from 'ava';
import { compileC, hyprof, libPath, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs, rankMain } from './helpers/mpi.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { attr, runSampled, totalSamples } from './sampling-support.js';
import type { TauThreadProfile } from '../src/profile/tau-model.js';

const missing = mpiMissing();
let app = '';
test.before(() => {
  if (!missing) app = compileMpiC('mpi_app', 'mpi_app.c');
});

function meta(th: TauThreadProfile | undefined, key: string): string | undefined {
  return th?.metadata.find(([k]) => k === key)?.[1];
}

interface Run {
  stderr: string;
  /** per rank: samples taken on each thread index, and the service-thread metadata */
  ranks: Array<{ taken: Map<number, number>; service?: string; mode?: string }>;
}

/** Two ranks under `hyprof run -- mpirun`, about a second of work each (mpi_app imbalance). */
async function runMpi(mode?: string): Promise<Run> {
  const dir = tmpDir('mpi-svc');
  const r = await hyprof(['run', '--dir', dir, '--', 'mpirun', ...mpirunArgs(2), app, 'imbalance', '20'], {
    env: { HYPROF_SERVICE_THREADS: mode },
  });
  if (r.code !== 0) throw new Error(`hyprof run failed (${r.code}): ${r.stderr}`);
  const profile = readTauProfileDir(dir);
  const ranks = [0, 1].map((rank) => {
    const main = rankMain(profile, rank);
    const taken = new Map<number, number>();
    for (const [k, v] of main?.metadata ?? []) {
      const m = /^TAU_EBS_SAMPLES_TAKEN_(\d+)$/.exec(k);
      if (m) taken.set(Number(m[1]), Number(v));
    }
    return { taken, service: meta(main, 'hyprof service threads'), mode: meta(main, 'HYPROF_SERVICE_THREADS') };
  });
  return { stderr: r.stderr, ranks };
}

/** Thread indexes the metadata names as service threads, with the library each starts in. */
function serviceThreads(text: string | undefined): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of (text ?? '').matchAll(/thread (\d+) \(([^)]+)\)/g)) out.set(Number(m[1]), m[2]!);
  return out;
}

test('Open MPI service threads: CPU-time sampled by default (few samples), wall with the variable, off', async (t) => {
  if (missing) return t.fail(missing);
  const [dflt, wall, off] = [await runMpi(), await runMpi('wall'), await runMpi('off')];

  // the job says it once (rank 0 only), naming the variable
  t.is(dflt.stderr.match(/runtime service threads are sampled by their CPU time/g)?.length, 1, dflt.stderr);
  t.regex(dflt.stderr, /HYPROF_SERVICE_THREADS=wall/);
  t.notRegex(wall.stderr, /runtime service threads are/);

  for (const [rank, d] of dflt.ranks.entries()) {
    t.is(d.mode, 'cpu');
    const svc = serviceThreads(d.service);
    const libs = [...svc.values()].join(' ');
    // PMIx's thread always. Open MPI's progress thread (libopen-pal) was not recognised in about one
    // run in three: it starts while MPI_Init closes unselected components, and lookups were refused
    // during a dlclose (fixed; test/sampling-service-dlclose.test.ts makes that overlap certain). Still
    // logged rather than required until many runs have shown no other cause.
    t.regex(libs, /libpmix/, `rank ${rank}: ${d.service}`);
    if (!/libopen-pal/.test(libs)) t.log(`rank ${rank}: Open MPI's progress thread not recognised: ${d.service}`);
    t.false(svc.has(0), 'the main thread is not a service thread');
    t.regex(d.service ?? '', /: CPU time/);
    const main = d.taken.get(0) ?? 0;
    t.true(main > 200, `rank ${rank}: the main thread is sampled as before (${main} samples)`);
    for (const th of svc.keys()) {
      const n = d.taken.get(th) ?? 0;
      t.true(n < 0.05 * main, `rank ${rank} service thread ${th}: ${n} samples against the main thread's ${main}`);
    }
  }
  for (const [rank, w] of wall.ranks.entries()) {
    t.is(w.mode, 'wall');
    const svc = serviceThreads(w.service);
    t.true(svc.size >= 1, `rank ${rank}: ${w.service}`);
    t.regex(w.service ?? '', /: wall clock/);
    const main = w.taken.get(0) ?? 0;
    for (const th of svc.keys()) {
      const n = w.taken.get(th) ?? 0;
      t.true(n > 0.5 * main, `rank ${rank} service thread ${th} by the wall clock: ${n} samples, main ${main}`);
    }
    // the main thread's own sampling does not depend on the mode (both by the wall clock)
    const mainDefault = dflt.ranks[rank]!.taken.get(0) ?? 0;
    t.true(mainDefault > 0.4 * main, `rank ${rank}: main ${mainDefault} (default) against ${main} (wall)`);
  }
  for (const o of off.ranks) {
    t.is(o.mode, 'off');
    const svc = serviceThreads(o.service);
    t.true(svc.size >= 1, o.service);
    t.regex(o.service ?? '', /: not sampled/);
    for (const th of svc.keys()) t.false(o.taken.has(th), `thread ${th} has no sampling state`);
    t.true((o.taken.get(0) ?? 0) > 200);
  }
});

test('threads of the program that wait (pthread_create, std::thread) stay on the wall clock', async (t) => {
  const exe = compileC('svc_waiters', ['svc_waiters.cc'], { cc: 'g++', link: false });
  const { result, raws } = await runSampled(exe, [], { LD_PRELOAD: libPath });
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  t.is(attr(p, 'HYPROF_SERVICE_THREADS'), 'cpu');
  t.is(attr(p, 'hyprof service threads'), undefined, 'no thread was reclassified');
  t.notRegex(result.stderr, /service threads/);
  const waiters = p.threads.filter((th) => th.index > 0);
  t.is(waiters.length, 2);
  // 300 ms of waiting at 1 kHz: by the wall clock about 300 samples each, by CPU time about none
  for (const th of waiters) t.true(totalSamples(th) > 100, `thread ${th.index}: ${totalSamples(th)} samples while waiting`);
});

test('a value of HYPROF_SERVICE_THREADS other than cpu, wall or off is named in one line; the default is used', async (t) => {
  const exe = compileC('svc_waiters', ['svc_waiters.cc'], { cc: 'g++', link: false });
  const { result, raws } = await runSampled(exe, [], { LD_PRELOAD: libPath, HYPROF_SERVICE_THREADS: 'sometimes' });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stderr, /^hyprof: HYPROF_SERVICE_THREADS=sometimes is not one of cpu, wall, off; using cpu$/m);
  t.is(attr(raws[0]!, 'HYPROF_SERVICE_THREADS'), 'cpu');
});
