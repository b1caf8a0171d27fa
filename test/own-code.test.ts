/**
 * hyprof's own code never appears in a user's profile: no frame of the runtime (its probes, its
 * OpenMP tool, the main / thread trampolines, the signal handler), no chain climbing into libc's
 * start-up code or, in an OpenMP region, above the region's outlined function; PLT stubs are named by the
 * function they call (`sin@plt`), not by the symbol before them (`_init`). Real OpenMP programs,
 * built with gcc and clang, sampled fast under hyprof run.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import type { ThreadStackView } from '../src/profile/tau-model.js';
import { readBuildId } from '../src/symbolize/elf-build-id.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';

/** Functions of every sampled and unwound frame of a thread: [SAMPLE] leaves and [UNWIND] callers. */
function chains(events: { name: string; group: string }[]): string[][] {
  return events
    .filter((e) => e.group.includes('TAU_SAMPLE') && e.group.includes('TAU_CALLPATH') && / => \[SAMPLE\] /.test(e.name))
    .map((e) =>
      e.name
        .split(/\s+=>\s+/)
        .filter((p) => p.startsWith('[UNWIND]') || p.startsWith('[SAMPLE]'))
        .map((p) => (p.startsWith('[UNWIND]') ? p.slice(p.lastIndexOf(' [@] ') + 5) : p.slice(9))),
    );
}

/**
 * The complete stacks of the stacks file (samples ending at a node: the node's chain, outermost
 * first), named as the chains above; a run that unwound complete stacks keeps only the innermost
 * frames in the TAU profile's chains (docs/assembly.md, "Complete stacks").
 */
function stackChains(s: ThreadStackView): string[][] {
  const out: string[][] = [];
  s.samples.forEach((n, i) => {
    if (n <= 0) return;
    const c: string[] = [];
    for (let at = i; at >= 0; at = s.parent[at]) {
      const [fn, file, line] = s.frames[s.frame[at]];
      c.unshift(`${fn} [{${file}} {${line}}]`);
    }
    out.push(c);
  });
  return out;
}

const OWN = /native\/(core|ompt|sample|dump)\/|_trampoline|\bhp_[a-z_]+|hyprof_/;
const STARTUP = /^(_start|__libc_start_main|__libc_start_call_main|start_thread|clone3?|_dl_start_user)\b/;
const OUTLINED = /^(\.omp_outlined\.|[A-Za-z_]\w*\._omp_fn\.\d+)/;

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: an OpenMP run's chains hold the program's code only, from main or the outlined region down`, async (t) => {
    const exe = compileC(`omp_constructs_own_${cc}`, ['omp_constructs.c'], { cc, cflags: ['-O1', '-g', '-fopenmp'], ldflags: ['-fopenmp'] });
    const dir = join(tmpDir(`own-${cc}`), 'prof');
    // Unwinding without a depth limit (only the stop where the timer started): every chain is whole.
    const r = await hyprof(['run', '--dir', dir, '--period', '500', '--', exe, 'all'], { env: { OMP_NUM_THREADS: '2', HYPROF_UNWIND_DEPTH: '0' } });
    t.is(r.code, 0, r.stderr);
    const threads = readTauProfileDir(dir).threads[0];
    t.true(threads.length >= 2);
    let workerChains = 0;
    for (const th of threads) {
      const cs = th.stacks ? stackChains(th.stacks) : chains(th.events);
      for (const c of [...cs, ...chains(th.events)]) {
        const text = c.join(' <- ');
        t.false(c.some((f) => OWN.test(f)), `hyprof's own code in ${text}`);
        t.false(c.some((f) => STARTUP.test(f)), `start-up code in ${text}`);
      }
      if (th.thread === 0) {
        // The master's chains start where its innermost timer started: main, or inside a parallel
        // region the region's outlined function, as on the workers (the context names the region).
        // (A chain seen cut short here, 0-2 a run, mostly in the vDSO, was a rare chain of the TAU
        // profile shortened while no stacks file kept it whole: the resolve now writes one.)
        for (const c of cs)
          if (c.length > 1) t.regex(c[0], c.some((f) => OUTLINED.test(f)) ? OUTLINED : /^main /, c.join(' <- '));
      } else {
        // A worker's chains in the program's code start at the region's outlined function (idle in
        // the runtime's pool, they hold no program code at all).
        for (const c of cs.filter((x) => x.some((f) => OUTLINED.test(f)))) {
          t.regex(c[0], OUTLINED, c.join(' <- '));
          workerChains++;
        }
      }
    }
    t.true(workerChains > 0, 'workers were sampled in the program\'s code');
  });

  test(`${cc}: an address in a PLT stub is named <function>@plt`, async (t) => {
    const exe = compileC(`plt_calls_${cc}`, ['plt_calls.c'], { cc, cflags: ['-O2', '-g'], ldflags: ['-lm'], link: false });
    const dump = spawnSync('objdump', ['-d', '--no-show-raw-insn', exe], { encoding: 'utf8' });
    const m = /^([0-9a-f]+) <sin@plt>:/m.exec(dump.stdout);
    if (!m) return t.fail(`objdump shows no sin@plt stub in ${exe}:\n${dump.stdout.slice(0, 2000)}`);
    const stub = BigInt(`0x${m[1]}`);
    const sym = new Symbolizer({ cacheDir: null });
    const [frames] = await sym.symbolizeModule(exe, readBuildId(exe) ?? '', [stub + 4n]);
    t.deepEqual(frames?.map((f) => f.function), ['sin@plt']);
  });
}
