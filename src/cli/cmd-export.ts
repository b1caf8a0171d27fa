/**
 * `hyprof export DIR --format F`: a TAU profile directory in another tool's format — pprof,
 * speedscope, collapsed stacks — with contexts, unwound frames and samples kept as
 * frames below the timers.
 */
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import { DROPPED_FORMATS, EXPORT_FORMATS, type ExportFormat, type ExportSelection } from '../output/export-common.js';
import { collapsedPieces, exportCollapsed } from '../output/export-collapsed.js';
import { exportPprof } from '../output/export-pprof.js';
import { exportSpeedscope } from '../output/export-speedscope.js';
import type { TauProfile } from '../output/tau-model.js';
import { systemErrorText, UserError } from '../base/errors.js';
import { packageVersion } from './package-root.js';
import { readProfileWithProgress } from '../view/read-profile.js';

interface ExportCliOptions {
  format?: string;
  output?: string;
  thread?: string;
  metric?: string;
}

export function renderExport(profile: TauProfile, format: ExportFormat, sel: ExportSelection): Buffer | string {
  switch (format) {
    case 'pprof':
      return exportPprof(profile, sel);
    case 'speedscope':
      return `${JSON.stringify(exportSpeedscope(profile, sel, packageVersion()))}\n`;
    case 'collapsed':
      return exportCollapsed(profile, sel);
  }
}

export function register(program: Command): void {
  program
    .command('export')
    .description(`write a TAU profile directory in another format (${EXPORT_FORMATS.join(', ')})`)
    .argument('<dir>', 'profile directory (profile.<node>.<context>.<thread> files or MULTI__<metric> subdirectories)')
    .requiredOption('--format <f>', `output format: ${EXPORT_FORMATS.join(', ')}`)
    .option('-o, --output <file>', 'write to this file (default: standard output; pprof needs a file unless stdout is redirected)')
    .option('--thread <sel>', 'only this thread: <node>,<context>,<thread> or a thread number (default: all)')
    .option('--metric <name>', 'metric to export (default: the first)')
    .action((dir: string, opts: ExportCliOptions) => {
      const format = opts.format as ExportFormat;
      const dropped = DROPPED_FORMATS[opts.format ?? ''];
      if (dropped !== undefined) throw new UserError(`--format ${opts.format}: not written: ${dropped}`, 2);
      if (!EXPORT_FORMATS.includes(format)) {
        throw new UserError(`--format ${opts.format}: unknown format; formats: ${EXPORT_FORMATS.join(', ')}`, 2);
      }
      if (format === 'pprof' && !opts.output && process.stdout.isTTY) {
        throw new UserError('--format pprof writes binary data: give -o FILE or redirect standard output', 2);
      }
      const profile = readProfileWithProgress(dir);
      const sel = { thread: opts.thread, metric: opts.metric };
      // Collapsed stacks are written piece by piece as they are made: millions of lines never
      // become one string.
      if (format === 'collapsed') {
        writePieces(opts.output, collapsedPieces(profile, sel));
        return;
      }
      const data = renderExport(profile, format, sel);
      if (opts.output) {
        try {
          writeFileSync(opts.output, data);
        } catch (e) {
          throw cannotWrite(opts.output, e);
        }
      } else process.stdout.write(data);
    });
}

function cannotWrite(file: string, e: unknown): UserError {
  return new UserError(`${file}: cannot write: ${systemErrorText(e) ?? (e as Error).message}`, 1);
}

/** Write text pieces to `file`, or to standard output (synchronous on Linux for files, pipes and terminals). */
function writePieces(file: string | undefined, pieces: Iterable<string>): void {
  if (!file) {
    for (const piece of pieces) process.stdout.write(piece);
    return;
  }
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (e) {
    throw cannotWrite(file, e);
  }
  try {
    for (const piece of pieces) {
      const bytes = Buffer.from(piece);
      // writeSync may write less than asked (a file size limit reached): loop to the error.
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw cannotWrite(file, e);
  } finally {
    closeSync(fd);
  }
}
