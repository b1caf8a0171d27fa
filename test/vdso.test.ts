/**
 * The kernel's vDSO named (src/symbolize/vdso.ts): a program that reads the clock in a loop spends
 * its time in `__vdso_clock_gettime`, which a profile names as perf does, not `UNRESOLVED [vdso]`;
 * a vDSO of another kernel (another build id) is never used to name anything.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { Vdso } from '../src/symbolize/vdso.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';

test('a program reading the clock in a loop: its time is in __vdso_clock_gettime, none UNRESOLVED [vdso]', async (t) => {
  const exe = compileC('clock_loop', ['clock_loop.c'], { cflags: ['-O1', '-g'], link: false });
  const out = join(tmpDir('vdso'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', exe]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /^clock_loop: \d+ calls$/m);
  const events = readTauProfileDir(out).threads[0][0].events.filter((e) => e.name.startsWith('[SAMPLE] '));
  const total = events.reduce((a, e) => a + e.excl, 0);
  const inVdso = events.filter((e) => /^\[SAMPLE\] __vdso_clock_gettime \[\{\[vdso\]\} \{0\}\]$/.test(e.name)).reduce((a, e) => a + e.excl, 0);
  // most of the loop: the vDSO's reading of the clock; the rest in the C library's wrapper and main
  t.true(inVdso > 0.3 * total, `__vdso_clock_gettime: ${inVdso / 1000} of ${total / 1000} ms\n${events.map((e) => e.name).join('\n')}`);
  t.false(events.some((e) => e.name.includes('UNRESOLVED [vdso]')));
});

test("another kernel's vDSO (a build id not this machine's) names nothing", (t) => {
  const own = readFileSync('/proc/self/maps', 'utf8').includes(' [vdso]');
  if (!own) return t.fail('this process has no vDSO mapped');
  const other = new Vdso('0123456789abcdef0123456789abcdef01234567');
  t.false(other.usable);
  t.is(other.lookup(0x900n), null);
  t.false(new Vdso('').usable);
});
