/**
 * `hyprof export DIR --format F`: a TAU profile directory in another tool's format — pprof,
 * speedscope, collapsed stacks — with contexts, unwound frames and samples kept as
 * frames below the timers.
 */
import { closeSync, createWriteStream, fstatSync, openSync, rmSync, writeSync } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Command } from 'commander';
import { DROPPED_FORMATS, EXPORT_FORMATS, type ExportFormat, type ExportSelection } from '../export/export-common.js';
import { collapsedPieces } from '../export/export-collapsed.js';
import { pprofPieces } from '../export/export-pprof.js';
import { speedscopePieces } from '../export/export-speedscope.js';
import { openExportSource, type ExportSource } from '../export/export-source.js';
import { createProgress } from '../base/progress.js';
import { systemErrorText, UserError } from '../base/errors.js';
import { packageVersion } from '../base/package-root.js';
import { chromePieces } from '../export/export-chrome.js';
import { hasTrace, readTrace, traceAnchor } from '../trace/otf2-index.js';
import { buildModel, traceNotes } from '../trace/trace-model.js';

interface ExportCliOptions {
  format?: string;
  output?: string;
  thread?: string;
  metric?: string;
}

/**
 * The export's pieces: text for collapsed and speedscope, the uncompressed profile for pprof. Each
 * thread's events are read from its file when the export comes to it (export-source.ts).
 */
export function exportPieces(source: ExportSource, format: ExportFormat, sel: ExportSelection): Iterable<string> | Iterable<Uint8Array> {
  const { profile, eventsOf } = source;
  switch (format) {
    case 'pprof':
      return pprofPieces(profile, sel, eventsOf);
    case 'speedscope':
      return speedscopePieces(profile, sel, packageVersion(), eventsOf);
    case 'collapsed':
      return collapsedPieces(profile, sel, eventsOf);
  }
}

function openSource(dir: string): ExportSource {
  const progress = createProgress();
  try {
    return openExportSource(dir, (_file, index, total) => progress.update(`hyprof: reading ${dir}: file ${index + 1} of ${total}`));
  } finally {
    progress.done();
  }
}

export function register(program: Command): void {
  program
    .command('export')
    .description(`write a TAU profile directory in another format (${EXPORT_FORMATS.join(', ')}; chrome from its trace)`)
    .argument('<dir>', 'profile directory (profile.<node>.<context>.<thread> files or MULTI__<metric> subdirectories)')
    .requiredOption('--format <f>', `output format: ${EXPORT_FORMATS.join(', ')}, or chrome (the run's trace, when it recorded one)`)
    .option('-o, --output <file>', 'write to this file (default: standard output; pprof needs a file unless stdout is redirected)')
    .option('--thread <sel>', 'only this thread: <node>,<context>,<thread> or a thread number (default: all)')
    .option('--metric <name>', 'metric to export (default: the first)')
    .action(async (dir: string, opts: ExportCliOptions) => {
      const format = opts.format as ExportFormat;
      if (opts.format === 'chrome') {
        // A Chrome trace is a timeline: written from the run's trace only, never invented from a profile.
        if (!hasTrace(dir)) {
          throw new UserError(`--format chrome: ${dir} has no trace (${traceAnchor(dir)}): ${DROPPED_FORMATS.chrome}`, 2);
        }
        const model = buildModel(await readTrace(dir));
        for (const note of traceNotes(model)) process.stderr.write(`hyprof: ${traceAnchor(dir)}: ${note}\n`);
        writePieces(opts.output, chromePieces(model, packageVersion()));
        return;
      }
      if (!EXPORT_FORMATS.includes(format)) {
        throw new UserError(`--format ${opts.format}: unknown format; formats: ${EXPORT_FORMATS.join(', ')}`, 2);
      }
      if (format === 'pprof' && !opts.output && process.stdout.isTTY) {
        throw new UserError('--format pprof writes binary data: give -o FILE or redirect standard output', 2);
      }
      const source = openSource(dir);
      const sel = { thread: opts.thread, metric: opts.metric };
      // Every format is written piece by piece as it is made: millions of stacks never become one
      // string, and a thread's events are read as it is exported.
      const pieces = exportPieces(source, format, sel);
      if (format === 'pprof') await writeGzipped(opts.output, pieces as Iterable<Uint8Array>);
      else writePieces(opts.output, pieces as Iterable<string>);
    });
}

function cannotWrite(file: string, e: unknown): UserError {
  return new UserError(`${file}: cannot write: ${systemErrorText(e) ?? (e as Error).message}`, 1);
}

function openOutput(file: string): number {
  try {
    return openSync(file, 'w');
  } catch (e) {
    throw cannotWrite(file, e);
  }
}

/** Write text pieces to `file`, or to standard output (synchronous on Linux for files, pipes and terminals). */
function writePieces(file: string | undefined, pieces: Iterable<string>): void {
  if (!file) {
    for (const piece of pieces) process.stdout.write(piece);
    return;
  }
  const fd = openOutput(file);
  // Only a regular file is removed when the export stops midway, never a device or a pipe (/dev/null).
  const regular = fstatSync(fd).isFile();
  let ok = false;
  try {
    for (const piece of pieces) {
      const bytes = Buffer.from(piece);
      // writeSync may write less than asked (a file size limit reached): loop to the error.
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    }
    ok = true;
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw cannotWrite(file, e);
  } finally {
    closeSync(fd);
    // A thread's file is read as it is exported, so a bad one can stop the export midway: no half file is left.
    if (!ok && regular) rmSync(file, { force: true });
  }
}

/** Gzip the pieces into `file`, or to standard output (pprof's files are gzip-compressed). */
async function writeGzipped(file: string | undefined, pieces: Iterable<Uint8Array>): Promise<void> {
  let out: Writable = process.stdout;
  let regular = false;
  if (file) {
    // Opened here, so a path that cannot be written is told before anything is read.
    const fd = openOutput(file);
    regular = fstatSync(fd).isFile();
    out = createWriteStream('', { fd });
  }
  try {
    await pipeline(Readable.from(pieces), createGzip(), out, { end: file !== undefined });
  } catch (e) {
    if (file && regular) rmSync(file, { force: true });
    if (e instanceof UserError) throw e;
    throw file ? cannotWrite(file, e) : e;
  }
}
