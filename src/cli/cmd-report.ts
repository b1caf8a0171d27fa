/**
 * `hyprof report`: a TAU profile directory (hyprof's or TAU's own) printed in the terminal in the
 * manner of TAU's pprof, plus event paths, hot lines per context, sample drops and user events.
 */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { readOpenmpFile } from '../analysis/openmp.js';
import { buildReport, parseThreadSelector } from '../output/report-data.js';
import { renderDiagnoses, renderOpenmpReport } from '../output/report-openmp.js';
import type { SortKey } from '../output/report-data.js';
import { reportPieces } from '../output/report-text.js';
import { buildFunctionReport, renderFunctionReport } from '../output/report-functions.js';
import { jsonPieces } from '../base/json-pieces.js';
import { readTauProfileDir } from '../output/tau-reader.js';

interface ReportCliOptions {
  callpath?: boolean;
  thread?: string;
  metric?: string;
  sort: SortKey;
  limit?: number;
  hot: number;
  json?: boolean;
  openmp?: boolean;
  diagnose?: boolean;
  functions?: boolean;
}

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
    .option('--thread <sel>', 'threads to print: N (thread number), n,c,t, all (each thread and the mean) or mean', 'all')
    .option('--metric <name>', 'metric to print (default: the first)')
    .addOption(new Option('--sort <key>', 'order of the flat table').choices(['excl', 'incl', 'calls', 'name']).default('excl'))
    .option('--limit <n>', 'at most n rows per flat table', positiveInt('--limit'))
    .option('--hot <n>', 'sampled lines shown per context', positiveInt('--hot'), 5)
    .option('--json', 'print the same data as JSON')
    .option('--openmp', 'OpenMP analysis instead: blame metrics, overhead classes per region, constructs, tasks')
    .option('--diagnose', 'OpenMP problems found (imbalance, serial sections, lock contention ...) with their code locations')
    .option(
      '--functions',
      'the samples by function instead: self and total (callers included) per function, over all contexts and per context, ' +
        'like perf report --no-children (--sort excl, the default) and --children (--sort incl)',
    )
    .action((dir: string, opts: ReportCliOptions) => {
      if (opts.openmp || opts.diagnose) {
        // The analysis `hyprof resolve` wrote beside the profile (openmp.json).
        const data = readOpenmpFile(dir);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
          return;
        }
        const parts = [];
        if (opts.openmp) parts.push(renderOpenmpReport(data, { limit: opts.limit }));
        if (opts.diagnose) parts.push(renderDiagnoses(data));
        process.stdout.write(`${parts.map((p) => p.replace(/\n*$/, '\n')).join('\n')}`);
        return;
      }
      const profile = readTauProfileDir(dir);
      if (opts.functions) {
        const f = buildFunctionReport(profile, {
          metric: opts.metric,
          thread: parseThreadSelector(opts.thread ?? 'all'),
          sort: opts.sort === 'incl' ? 'total' : 'self',
          limit: opts.limit,
        });
        process.stdout.write(opts.json ? `${JSON.stringify(f, null, 2)}\n` : renderFunctionReport(f));
        return;
      }
      const report = buildReport(profile, {
        metric: opts.metric,
        thread: parseThreadSelector(opts.thread ?? 'all'),
        sort: opts.sort,
        limit: opts.limit,
        callpath: opts.callpath ?? false,
        hotLines: opts.hot,
      });
      // In pieces: the text of millions of events may exceed what one string can hold. Standard output
      // is synchronous on Linux for files, pipes and terminals, so pieces do not pile up in memory.
      const pieces = opts.json ? jsonPieces(report, 2) : reportPieces(report);
      for (const piece of pieces) process.stdout.write(piece);
      if (opts.json) process.stdout.write('\n');
    });
}
