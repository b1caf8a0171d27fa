/**
 * `hyprof view DIR`: serve a TAU profile directory (hyprof's or TAU's own) to the browser in the
 * manner of ParaProf, on a loopback address. Runs until interrupted.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { startViewServer } from '../view/server.js';
import { UserError } from '../base/errors.js';
import { hasTrace, readTrace, traceAnchor } from '../trace/otf2-index.js';
import { buildModel, traceNotes, type TraceModel } from '../trace/trace-model.js';
import { bundledWebFiles } from './bundled-web.js';
import { openProfileForView } from '../view/read-profile.js';
import { RANGES_ABOVE } from '../view/scaled-profile.js';
import { commonMetric } from '../report/diff.js';
import { readRun } from './cmd-diff.js';

interface ViewCliOptions {
  port: number;
  host: string;
  open?: boolean;
  sourceDir: string[];
  rangesAbove: number;
}

/** `--source-dir` may be given several times; each must be an existing directory. */
function sourceDirs(value: string, previous: string[]): string[] {
  let isDir = false;
  try {
    isDir = statSync(value).isDirectory();
  } catch {
    /* below */
  }
  if (!isDir) throw new InvalidArgumentError(`--source-dir ${value}: not a directory.`);
  return [...previous, value];
}

function portNumber(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65535) {
    throw new InvalidArgumentError(`--port must be a whole number from 0 to 65535 (0 = a free port), not '${value}'.`);
  }
  return Number(value);
}

/** Launch the desktop's browser; say so when there is none (a remote shell, a batch node). */
function openBrowser(url: string): void {
  const have = (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, 'xdg-open')));
  if (!have) {
    process.stderr.write(`hyprof: could not open a browser (xdg-open not found); open ${url} yourself\n`);
    return;
  }
  const child = spawn('xdg-open', [url], { stdio: 'ignore', detached: true });
  child.on('error', () => process.stderr.write(`hyprof: could not open a browser; open ${url} yourself\n`));
  child.unref();
}

export function register(program: Command): void {
  program
    .command('view')
    .description('show a TAU profile directory in the browser (bar charts, statistics, event-path tree, flame graph)')
    .argument('<dir>', 'profile directory (profile.<node>.<context>.<thread> files or MULTI__<metric> subdirectories)')
    .argument('[compare]', 'a second profile directory: compare it (B) with the first (A): differences, differential flame graph')
    .option('--port <n>', 'port to listen on (0 = a free port)', portNumber, 0)
    .option('--host <addr>', 'loopback address to listen on', '127.0.0.1')
    .option('--open', 'open the page in the desktop browser (xdg-open)')
    .option(
      '--ranges-above <n>',
      'above this many threads, show rank ranges and read a thread from its file when it is opened',
      (v: string) => {
        if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError(`--ranges-above must be a whole number of threads, not '${v}'.`);
        return Number(v);
      },
      RANGES_ABOVE,
    )
    .option(
      '--source-dir <dir>',
      "show source files under this directory (repeatable; other directories are shown once confirmed in the page; never /proc, /sys, /dev)",
      sourceDirs,
      [],
    )
    .action(async (dir: string, compare: string | undefined, opts: ViewCliOptions) => {
      const { profile, scaled } = compare === undefined ? openProfileForView(dir, opts.rangesAbove) : { profile: readRun(dir, 'A'), scaled: undefined };
      const other = compare === undefined ? undefined : readRun(compare, 'B');
      if (other) commonMetric(profile, other);
      const trace = await traceForView(dir);
      const view = await startViewServer(profile, {
        trace,
        host: opts.host,
        port: opts.port,
        sourceDirs: opts.sourceDir,
        compare: other,
        scaled,
        webFiles: bundledWebFiles(),
      });
      process.stdout.write(`hyprof: viewing ${dir}${compare !== undefined ? ` compared with ${compare}` : ''} at ${view.url}\n`);
      if (opts.open) openBrowser(view.url);
      const stop = (): void => {
        void view.close().then(() => process.exit(0));
        // Keep-alive connections of an open page would hold close() back.
        view.server.closeAllConnections();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/**
 * The run's trace for the timeline, when the directory has one. A trace that cannot be read (no
 * reader built, a damaged archive) is said once and the profile is shown without a timeline.
 */
async function traceForView(dir: string): Promise<TraceModel | { none: string } | undefined> {
  if (!hasTrace(dir)) return undefined;
  try {
    const model = buildModel(await readTrace(dir));
    for (const note of traceNotes(model)) process.stderr.write(`hyprof: ${traceAnchor(dir)}: ${note}\n`);
    return model;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    process.stderr.write(`hyprof: no timeline: ${e.message}\n`);
    return { none: e.message };
  }
}
