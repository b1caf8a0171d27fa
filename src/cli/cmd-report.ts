/**
 * `hyprof report`: a TAU profile directory (hyprof's or TAU's own) printed in the terminal in the
 * manner of TAU's pprof, plus event paths, hot lines per context, sample drops and user events.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { ALL_THREADS_UP_TO, reportDir, type ReportOptions } from '../report/report-dir.js';
import { colourWanted } from '../report/term-colour.js';
import { unitsOption } from './units-option.js';

export function positiveInt(what: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
      throw new InvalidArgumentError(`${what} must be a whole number of at least 1, not '${value}'.`);
    }
    return Number(value);
  };
}

export function register(program: Command): void {
  program
    .command('report')
    .description('print a TAU profile directory as tables (in the manner of TAU pprof)')
    .argument('[dir]', 'profile directory (profile.<node>.<context>.<thread> files or MULTI__<metric> subdirectories)', '.')
    .option('--callpath', 'also print the event-path tree (a => b), with sample contexts, hot lines and unwound chains')
    .option(
      '--thread <sel>',
      `threads to print: N (thread number), n,c,t, all (each thread and the mean) or mean (default: all up to ${ALL_THREADS_UP_TO} threads, else mean)`,
    )
    .option('--metric <name>', 'metric to print (default: the first)')
    .addOption(new Option('--sort <key>', 'order of the flat table').choices(['excl', 'incl', 'calls', 'name']).default('excl'))
    .option('--limit <n>', 'at most n rows per flat table', positiveInt('--limit'))
    .option('--hot <n>', 'sampled lines shown per context', positiveInt('--hot'), 5)
    .option('--json', 'print the same data as JSON')
    .addOption(unitsOption())
    .option('--gpu', 'GPU analysis instead: per kernel and copy, per GPU stream (busy, idle), per launching context (docs/gpu.md)')
    .option('--openmp', 'OpenMP analysis instead: blame metrics, overhead classes per region, constructs, tasks')
    .option('--mpi', 'MPI accounting instead: time and bytes per rank, per call, per calling context and parallel region, call sites')
    .option('--matrix', 'with --mpi: the communication matrix, bytes and messages per sender × receiver rank (recorded with HYPROF_COMM_MATRIX=1 or TAU_COMM_MATRIX=1)')
    .option('--diagnose', 'problems found, with their code locations: OpenMP (imbalance, serial sections, lock contention ...) and MPI load imbalance between ranks')
    .option(
      '--functions',
      'the samples by function instead: self and total (callers included) per function, over all contexts and per context, ' +
        'like perf report --no-children (--sort excl, the default) and --children (--sort incl)',
    )
    .option('--event <name>', 'one timer (or event path, or sampled function) on every thread instead: bars of its exclusive value, with mean, min, max, std. dev.')
    .option(
      '--trace',
      "the run's trace instead (DIR/traces.otf2): MPI wait states (late sender, late receiver, wait at N×N, late broadcast) per call site and rank, " +
        'OpenMP task suspensions and task problems in time, the slowest instance of each phase against the median one',
    )
    .option('--fold <name>', 'the fold of a timer recorded with HYPROF_FOLD instead: its instances folded onto one, as bins of 0-100 % with top functions and metric rates (docs/fold.md)')
    .option('--time <metric>', 'the time axis of the fold (--fold): TIME (default) or CPU_TIME when measured (HYPROF_METRICS=TIME:CPU_TIME): preemption then does not stretch instances')
    .option('--bins <n>', 'bins of the fold (--fold; default 20, 5 % each)', positiveInt('--bins'))
    .addHelpText(
      'after',
      '\nA profile of several ranks (MPI) also gets a RANKS section: ranks lost, the slowest rank, and per event\nthe mean, std. dev., min and max over all threads (ParaProf\'s mean and std. dev. views).',
    )
    .action(async (dir: string, opts: ReportOptions) => {
      for await (const piece of reportDir(dir, { ...opts, colour: colourWanted(process.stdout.isTTY, process.env) })) process.stdout.write(piece);
    });
}
