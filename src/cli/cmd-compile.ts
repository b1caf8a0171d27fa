/**
 * `hyprof cc|c++|f90 ARGS...`: compiler wrappers in the manner of TAU's compiler scripts (tau_cc.sh,
 * tau_cxx.sh, tau_f90.sh). They run the real compiler ($CC / $CXX / $FC, else cc / c++ / gfortran)
 * with hyprof's include directory, the flags of compiler instrumentation and, when linking, the
 * runtime library added. With a selective instrumentation file (HYPROF_SELECT_FILE / TAU_SELECT_FILE)
 * its file lists decide which sources are instrumented at all, and gcc gets the exclusions it can
 * express (instrument-flags.ts); the runtime applies the routine lists.
 */
import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { UserError } from '../base/errors.js';
import { configWords } from './cmd-config.js';
import { compilerFamily, instrumentFlags } from './instrument-flags.js';
import { fileSelected, readSelectFile } from './select-file.js';

const SOURCE = /\.(c|cc|cp|cpp|cxx|c\+\+|C|f|for|ftn|f90|f95|f03|f08|F|FOR|F90|F95|F03|F08)$/;

const WRAPPERS: Array<{ name: string; env: string; dflt: string; what: string }> = [
  { name: 'cc', env: 'CC', dflt: 'cc', what: 'C' },
  { name: 'c++', env: 'CXX', dflt: 'c++', what: 'C++' },
  { name: 'f90', env: 'FC', dflt: 'gfortran', what: 'Fortran' },
];

/** The command line of the real compiler. Notes (what the flags cannot express) go to `note`. */
export function compileCommand(compiler: string, args: string[], env: NodeJS.ProcessEnv, note: (s: string) => void): string[] {
  const selectPath = env.HYPROF_SELECT_FILE || env.TAU_SELECT_FILE;
  const lists = selectPath ? readSelectFile(selectPath) : null;
  const sources = args.filter((a) => !a.startsWith('-') && SOURCE.test(a));
  const chosen = lists ? sources.filter((s) => fileSelected(lists, s)) : sources;
  const instrument = sources.length === 0 || chosen.length > 0;
  const words = [...configWords({ cflags: true })];
  if (instrument) {
    const { flags, notes } = instrumentFlags(compilerFamily(compiler), lists);
    words.push(...flags);
    for (const n of notes) if (!/hyprof cc/.test(n)) note(n);
    if (chosen.length < sources.length)
      note(`${sources.filter((s) => !chosen.includes(s)).join(', ')}: excluded by ${selectPath} but compiled with ${chosen.join(', ')}; compile them separately to leave them uninstrumented`);
  } else {
    words.push('-g');
  }
  words.push(...args);
  const linking = !args.some((a) => a === '-c' || a === '-S' || a === '-E' || a === '-M' || a === '-MM');
  if (linking) words.push(...configWords({ libs: true }));
  return words;
}

export function register(program: Command): void {
  for (const w of WRAPPERS) {
    program
      .command(w.name)
      .description(`the ${w.what} compiler ($${w.env}, else ${w.dflt}) with compiler instrumentation and hyprof added`)
      .argument('[args...]', 'the compiler arguments, unchanged')
      .allowUnknownOption()
      .helpOption(false)
      .passThroughOptions()
      .addHelpText('after', `\nExample:\n  npx hyprof ${w.name} -O2 app.${w.name === 'f90' ? 'f90' : 'c'} -o app && ./app   # every function a timer`)
      .action((args: string[]) => {
        const compiler = process.env[w.env] || w.dflt;
        const words = compileCommand(compiler, args, process.env, (s) => process.stderr.write(`hyprof: ${s}\n`));
        const r = spawnSync(compiler, words, { stdio: 'inherit' });
        if (r.error) throw new UserError(`cannot run the compiler '${compiler}' ($${w.env}): ${r.error.message}`, 1);
        process.exitCode = r.status ?? 1;
      });
  }
}
