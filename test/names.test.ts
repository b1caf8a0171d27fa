/**
 * Names that would break the format are rewritten so the profile stays valid (docs/assembly.md,
 * "Names"): ` => ` inside a name, empty and blank names, names that differ only in blanks, quotes
 * and line breaks, in timers, a phase, a parameter and a user event, built with gcc and clang and
 * sampled. TAU's strict reader accepting the profile is part of the conformance check every run
 * here passes.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: names holding =>, empty, blank or quoted names give a valid profile`, async (t) => {
    const exe = compileC(`odd_names_${cc}`, ['odd_names.c'], { cc, cflags: ['-O1', '-g'] });
    const dir = join(tmpDir(`names-${cc}`), 'prof');
    const r = await hyprof(['run', '--dir', dir, '--period', '1000', '--', exe]);
    t.is(r.code, 0, r.stderr);
    const th = readTauProfileDir(dir).threads[0][0];
    const flat = new Map(th.events.filter((e) => !e.name.includes(' => ')).map((e) => [e.name, e]));
    t.is(flat.get('a -> b')?.calls, 2);
    t.is(flat.get('c->d')?.calls, 2);
    // The empty and the blank name are one unnamed timer; names that differ only in blanks are one.
    t.is(flat.get('(unnamed)')?.calls, 4);
    t.is(flat.get('x y')?.calls, 4);
    t.is(flat.get("say 'hi' now")?.calls, 2);
    t.is(flat.get('phase -> one')?.calls, 1);
    t.truthy(flat.get('a -> b  [ <n -> m> = <0> ]  '));
    t.truthy(th.events.find((e) => e.name === '.TAU application => phase -> one => a -> b'));
    t.false(th.events.some((e) => e.name.split(' => ').some((part) => part.trim() === '')));
    t.deepEqual(th.userEvents.map((u) => u.name), ['(unnamed)']);
  });
}
