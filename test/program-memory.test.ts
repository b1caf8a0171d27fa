/**
 * The measured program's own memory with many dynamic phases: 200,000 phases "Iteration <i>", each
 * with a timer inside (400,000 contexts on one thread), then a flush, from a real program linked
 * with the runtime (test/native/phase_memory.c). Its peak resident set, the flush's memory included,
 * stays under 200 MB above what it had before the first probe. Before the statistics tables freed
 * the tables they replaced, sized their slots by the run's metric count and the event names were
 * packed, it was about 300 MB (625 bytes per context at 10^6 phases: bench/RESULTS.md). The flush's
 * file holds every context.
 */
import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, run, tmpDir } from './helpers/native.js';
import { readRawFile } from '../src/samples/raw-reader.js';

const PHASES = 200_000;
const BOUND_MB = 200;

test(`${PHASES} dynamic phases (${2 * PHASES} contexts) keep the program's peak under ${BOUND_MB} MB above its start`, async (t) => {
  const exe = compileC('phase_memory', ['phase_memory.c'], { cflags: ['-O1', '-g'] });
  const raw = tmpDir('phase-memory');
  // THROTTLE=0: the inner timer runs 200,000 times, beyond TAU's rule's 100,000 calls
  const r = await run(exe, [String(PHASES)], {
    env: { HYPROF_RAW_DIR: raw, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0', HYPROF_THROTTLE: '0' },
  });
  t.is(r.code, 0, r.stderr);
  const m = /rss_start_kb (\d+) peak_kb (\d+)/.exec(r.stdout);
  t.truthy(m, r.stdout);
  const grownMb = (Number(m![2]) - Number(m![1])) / 1024;
  t.log(`peak resident set above the start: ${grownMb.toFixed(0)} MB, ${Math.round((grownMb * 1048576) / (2 * PHASES))} bytes per context`);
  t.true(grownMb < BOUND_MB, `${grownMb.toFixed(0)} MB`);

  // the flush's file, and the exit's (the same file name: the last one written), holds them all
  const files = readdirSync(raw).filter((f) => f.endsWith('.raw'));
  t.is(files.length, 1, files.join(', '));
  const proc = readRawFile(join(raw, files[0]!));
  const names = new Set(proc.events.map((e) => e.name));
  t.true(names.has('Iteration 0') && names.has(`Iteration ${PHASES - 1}`) && names.has('work'));
  t.true(proc.contexts.size >= 2 * PHASES, `${proc.contexts.size} contexts`);
  t.is(proc.threads.length, 1);
  t.true(proc.threads[0]!.stats.length >= 2 * PHASES, `${proc.threads[0]!.stats.length} statistics`);
  const nameOf = new Map(proc.events.map((e) => [e.id, e.name]));
  const work = proc.threads[0]!.stats.list().filter((s) => nameOf.get(proc.contexts.get(s.context)?.event ?? -1) === 'work');
  t.is(work.length, PHASES, 'one "work" context per phase');
  t.true(work.every((s) => s.calls === 1));
});
