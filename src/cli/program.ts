/**
 * The `hyprof` program: every subcommand registered (one cmd-*.ts file each), and the mapping of
 * errors to messages and exit statuses. Errors a user can cause (UserError) print one line and exit
 * with their status; anything else is a bug in hyprof and says so (exit 70, EX_SOFTWARE), with the
 * stack only under HYPROF_DEBUG=1.
 */
import { endEarlySignals } from '../base/early-signals.js';
import { Command, CommanderError } from 'commander';
import { systemErrorText, UserError } from '../base/errors.js';
import { packageVersion } from '../base/package-root.js';
import { otherToolsWord } from './other-tools.js';

/** EX_SOFTWARE from sysexits.h: an internal error. */
export const EXIT_INTERNAL = 70;
/** Usage errors (unknown command or option, bad option value). */
export const EXIT_USAGE = 2;
/** The work failed for a reason outside the input: disk full, an unwritable directory. */
export const EXIT_ENVIRONMENT = 1;

/**
 * The subcommands (their names and aliases, and their module), in the order help lists them. Each
 * module is loaded only when needed: a command line that names one loads only that one (`hyprof
 * resolve` need not load and compile the viewer, the exports and the reports: about 0.1 s of CPU,
 * a tenth of the resolve of a Node run); anything else (help, a misspelt command) loads them all.
 */
const COMMANDS: Array<[string[], () => Promise<{ register(program: Command): void }>]> = [
  [['run', 'record'], () => import('./cmd-run.js')],
  [['resolve'], () => import('./cmd-resolve.js')],
  [['report'], () => import('./cmd-report.js')],
  [['diff'], () => import('./cmd-diff.js')],
  [['view'], () => import('./cmd-view.js')],
  [['export'], () => import('./cmd-export.js')],
  [['config'], () => import('./cmd-config.js')],
  [['cc', 'c++', 'f90'], () => import('./cmd-compile.js')],
];

/** The program with the subcommands `argv` may need (all of them without an argv). */
export async function buildProgram(argv: string[] = []): Promise<Command> {
  const program = new Command();
  program
    .name('hyprof')
    .description('hybrid probe + sampling profiler in the style of TAU: measure programs, write TAU profiles, report them')
    .version(packageVersion(), '-V, --version')
    .showSuggestionAfterError(true)
    // Options after `run <program>` belong to the program (passThroughOptions needs this).
    .enablePositionalOptions()
    // Commander's messages start with "error: "; hyprof's all start with "hyprof: ".
    .configureOutput({ outputError: (str, write) => write(`hyprof: ${str.replace(/^error: /, '')}`) })
    .exitOverride()
    // The startup signal handling (base/early-signals.ts) ends where a command begins; `run` ends it
    // itself once its own handling is in place, so no signal finds hyprof without any.
    .hook('preAction', (_, action) => {
      if (action.name() !== 'run') endEarlySignals();
    });
  // Settings above are inherited by subcommands created after this point.
  const named = COMMANDS.find(([names]) => names.includes(argv[2]));
  for (const m of await Promise.all((named ? [named] : COMMANDS).map(([, load]) => load()))) m.register(program);
  return program;
}

function debug(): boolean {
  return process.env.HYPROF_DEBUG === '1';
}

/** Map a thrown error to the exit status, printing what the user needs to see. */
export function reportError(e: unknown): number {
  if (e instanceof CommanderError) {
    // Help and version are printed by commander and end successfully.
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
    if (e.code === 'commander.executeSubCommandAsync') return e.exitCode;
    return e.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (e instanceof UserError) {
    process.stderr.write(`hyprof: ${e.message}\n`);
    if (debug() && e.stack) process.stderr.write(`${e.stack}\n`);
    return e.exitCode;
  }
  // A failed system call (disk full, a directory where a file should be) is the environment's, not a
  // bug: said in words, with the file when known, exit 1. Known paths give their own message first.
  const system = systemErrorText(e);
  if (system) {
    const { path, syscall } = e as NodeJS.ErrnoException;
    process.stderr.write(`hyprof: ${path ?? `${syscall ?? 'a system call'} failed`}: ${system}\n`);
    if (debug() && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    return EXIT_ENVIRONMENT;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  process.stderr.write(`hyprof: internal error: ${err.message}\n`);
  process.stderr.write(
    debug() && err.stack
      ? `${err.stack}\n`
      : 'hyprof: this is a bug in hyprof; please report it with the command line (HYPROF_DEBUG=1 shows the stack)\n',
  );
  return EXIT_INTERNAL;
}

export async function main(argv: string[]): Promise<void> {
  // `hyprof report | head`: the reader is gone, which is not an error of hyprof.
  // Any other failure to write the output (`> /dev/full`, a full disk) is said, not thrown.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`hyprof: cannot write to standard output: ${systemErrorText(e) ?? e.message}\n`);
    process.exit(EXIT_ENVIRONMENT);
  });
  try {
    const program = await buildProgram(argv);
    // perf's, TAU's and pprof's words: the command hyprof has for them, not the nearest spelling.
    const first = argv[2];
    const other = first !== undefined && !program.commands.some((c) => c.name() === first || c.aliases().includes(first)) ? otherToolsWord(first) : undefined;
    if (other) throw new UserError(other, EXIT_USAGE);
    await program.parseAsync(argv);
  } catch (e) {
    process.exitCode = reportError(e);
  }
}
