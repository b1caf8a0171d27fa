/**
 * Parameter profiles as a TAU user writes them (TAU.h, TAU_PROFILE_PARAM1L on a running phase, the
 * same name once per matrix size), built with gcc and clang and run with sampling under hyprof run:
 * each value gets its own time and samples, a new name specialises further, and the specialisations
 * are flat TAU_PARAM entries whose samples hang under their timer, never a second copy of it.
 */
import test from 'ava';
import { join } from 'node:path';
import { displayName, type TauEvent } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { compileC, hyprof, run, tmpDir } from './helpers/native.js';

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: a parameter set again with the same name replaces its value; each value has its own time and samples`, async (t) => {
    const exe = compileC(`param_phases_${cc}`, ['param_phases.c'], { cc, cflags: ['-O2', '-g'] });
    const dir = join(tmpDir(`params-${cc}`), 'prof');
    // CPU time beside wall time: the lengths' order is checked in the work's own clock, which load
    // does not stretch (a loaded machine made the 40 ms interval longer in wall time than the 80 ms one).
    const r = await hyprof(['run', '--dir', dir, '--period', '1000', '--', exe, '2'], { env: { HYPROF_METRICS: 'TIME:CPU_TIME' } });
    t.is(r.code, 0, r.stderr);
    const events = readTauProfileDir(join(dir, 'MULTI__TIME')).threads[0][0].events;
    const cpuEvents = readTauProfileDir(join(dir, 'MULTI__CPU_TIME')).threads[0][0].events;
    const get = (name: string, from = events): TauEvent => {
      const e = from.find((x) => x.name === name);
      if (!e) throw new Error(`no "${name}" in ${events.map((x) => x.name).join('\n')}`);
      return e;
    };
    // TAU's names; never a chain of values of one name.
    t.false(events.some((e) => /\[ <size> = <\d+> \]\s+\[ <size>/.test(e.name)), 'size values are not chained');
    const spec = (size: number) => get(`Iteration 0  [ <size> = <${size}> ]  `);
    for (const size of [128, 256, 512]) {
      t.is(spec(size).calls, 1);
      t.is(spec(size).group, 'TAU_PARAM | TAU_USER');
    }
    // A second name specialises the last value further.
    t.is(get('Iteration 0  [ <size> = <512> ]  [ <mode> = <1> ]  ').calls, 1);
    // Each value's interval is its own: 20, 40 and 80 ms of work (CPU time; wall time may be longer).
    const ms = (size: number) => spec(size).incl / 1000;
    t.true(ms(128) >= 19 && ms(256) >= 39 && ms(512) >= 79, `${ms(128)} ${ms(256)} ${ms(512)}`);
    const cpuMs = (size: number) => get(`Iteration 0  [ <size> = <${size}> ]  `, cpuEvents).incl / 1000;
    t.true(cpuMs(512) > cpuMs(256) && cpuMs(256) > cpuMs(128), `CPU ${cpuMs(128)} ${cpuMs(256)} ${cpuMs(512)} ms`);
    // The specialisations are not in any event path; their samples hang under the phase itself.
    t.false(events.some((e) => e.name.includes(' => ') && /=> Iteration 0  \[/.test(e.name)));
    const ctx = (size: number) =>
      events.find((e) => e.group === 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH' && displayName(e.name) === `.TAU application => main => Iteration 0 => [CONTEXT] Iteration 0 [ <size> = <${size}> ]`);
    for (const size of [128, 256, 512]) t.truthy(ctx(size), `samples of size ${size} under Iteration 0`);
    t.true(ctx(512)!.calls > ctx(128)!.calls, `${ctx(512)!.calls} samples at 512, ${ctx(128)!.calls} at 128`);
    // The phase itself holds all of it.
    t.true(get('Iteration 0').incl >= ms(128) + ms(256) + ms(512));
  });
}

test("the first parameter set on a running timer covers the whole call, as in TAU; a name set again splits it", async (t) => {
  const exe = compileC('param_late', ['param_late.c'], { cflags: ['-O2', '-g'] });
  const dir = tmpDir('params-late');
  // Two metrics: the second (the thread's CPU time, in the busy work's own clock) follows TIME.
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_METRICS: 'TIME:CPU_TIME' } });
  t.is(r.code, 0, r.stderr);
  for (const metric of ['TIME', 'CPU_TIME']) {
    const events = readTauProfileDir(join(dir, `MULTI__${metric}`)).threads[0][0].events;
    const get = (name: string): TauEvent => {
      const e = events.find((x) => displayName(x.name) === name);
      if (!e) throw new Error(`no "${name}" in ${events.map((x) => x.name).join('\n')}`);
      return e;
    };
    const compute = get('compute');
    const k = get('compute [ <k> = <7> ]');
    t.is(k.calls, 1);
    t.is(k.subrs, 1, `${metric}: the child started before the parameter is the parameter's child too`);
    // The whole call: 40 ms, not the 10 ms after the parameter (clock reads a few microseconds apart).
    t.true(k.incl >= 39_000, `${metric}: ${k.incl} us`);
    t.true(Math.abs(k.incl - compute.incl) <= 200, `${metric}: compute ${compute.incl} us, its parameter ${k.incl} us`);
    t.true(Math.abs(k.excl - compute.excl) <= 200, `${metric}: exclusive ${compute.excl} and ${k.excl} us`);
    // The same name again: the first value's interval closes there, the second opens; together
    // they are the call. Their lengths are checked in CPU time (wall time stretches on a loaded machine).
    const n1 = get('twice [ <n> = <1> ]').incl / 1000;
    const n2 = get('twice [ <n> = <2> ]').incl / 1000;
    t.true(Math.abs(n1 + n2 - get('twice').incl / 1000) <= 0.2, `${metric}: ${n1} + ${n2} ms`);
    if (metric === 'CPU_TIME') {
      t.true(n1 >= 9.5 && n1 < 19, `n = 1 for ${n1} ms`);
      t.true(n2 >= 19.5 && n2 < 29, `n = 2 for ${n2} ms`);
    }
  }
});
