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
import { compileC, hyprof, tmpDir } from './helpers/native.js';

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: a parameter set again with the same name replaces its value; each value has its own time and samples`, async (t) => {
    const exe = compileC(`param_phases_${cc}`, ['param_phases.c'], { cc, cflags: ['-O2', '-g'] });
    const dir = join(tmpDir(`params-${cc}`), 'prof');
    const r = await hyprof(['run', '--dir', dir, '--period', '1000', '--', exe, '2']);
    t.is(r.code, 0, r.stderr);
    const events = readTauProfileDir(dir).threads[0][0].events;
    const get = (name: string): TauEvent => {
      const e = events.find((x) => x.name === name);
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
    t.true(ms(512) > ms(256) && ms(256) > ms(128));
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
