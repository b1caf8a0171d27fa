/**
 * `hyprof run -- program args...` (alias `record`): its options; the running is run/run-measured.ts.
 */
import { Option, type Command } from 'commander';
import { positiveInt } from './cmd-report.js';
import { runMeasured, type RunCliOptions } from '../run/run-measured.js';

export function register(program: Command): void {
  program
    .command('run')
    // perf's word for it
    .alias('record')
    .description('run a program with the hyprof runtime preloaded and write its TAU profile (alias: record)')
    .usage('[options] -- <program> [args...]')
    .argument('<program>', 'the program to measure (searched on PATH)')
    .argument('[args...]', 'its arguments')
    .option('-o, --dir <dir>', 'output directory (default: HYPROF_DIR, PROFILEDIR, else the current directory)')
    .option('--no-sampling', 'probes only: no sampling (default: sampling on unless HYPROF_SAMPLING / TAU_SAMPLING say otherwise)')
    .option('--period <us>', 'sampling period in microseconds (HYPROF_PERIOD_US)', positiveInt('--period'))
    .option('--keep-raw', 'keep the raw measurement files (their directory is printed)')
    .addOption(
      new Option('--format <format>', "profile.<node>.<context>.<thread> files, or TAU's single merged file tauprofile.xml (default: TAU_PROFILE_FORMAT, else profile)").choices([
        'profile',
        'merged',
      ]),
    )
    .passThroughOptions()
    .addHelpText(
      'after',
      '\nThe program gets every signal hyprof gets (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2);\nhyprof exits with the program\'s status (128+signal when a signal ended it).\nExample:\n  hyprof run --dir prof -- ./app -n 100',
    )
    .action(async (prog: string, args: string[], opts: RunCliOptions) => {
      process.exitCode = await runMeasured(prog, args, opts);
    });
}
