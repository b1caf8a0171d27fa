/**
 * `hyprof resolve`: raw measurement files (from a linked program, or kept by `hyprof run --keep-raw`)
 * → a TAU profile directory. Symbolization happens here, after the run, never in the measured process.
 */
import { rmSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { RANK_RAW_DIR } from '../profile/profile-dir.js';
import { collectInputs, defaultOutputDir, fromOneRun } from '../run/raw-inputs.js';
import { abandonResolve, resolveStep } from '../run/resolve-step.js';
import type { ResolveStepOptions } from '../run/resolve-step.js';
import { describeOutput, resolveNotes, signalNumber } from '../run/run-messages.js';
import { abandonNodeStep, nodeStep } from '../run/node-step.js';
import { UserError } from '../base/errors.js';

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

interface ResolveCliOptions {
  output?: string;
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer: ResolveStepOptions['symbolizer'];
  format?: ResolveStepOptions['format'];
  perNode?: boolean;
}

function depth(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
    throw new InvalidArgumentError(`the depth must be a whole number of at least 1, not '${value}'.`);
  }
  return Number(value);
}

export function register(program: Command): void {
  program
    .command('resolve')
    .description('turn raw measurement files (*.raw) into a TAU profile directory')
    .argument('<raw...>', 'raw files, or directories whose *.raw files are all resolved')
    .option('-o, --output <dir>', 'output directory (default: HYPROF_DIR, PROFILEDIR, else the current directory)')
    .option('--callpath', 'write event paths (a => b) (default: as measured)')
    .option('--no-callpath', 'write flat profiles only')
    .option('--callpath-depth <n>', 'events per path, counted from the leaf', depth)
    .option('--keep-addresses', 'append ADDR 0x... to samples that cannot be resolved')
    .addOption(
      new Option('--symbolizer <tool>', 'how addresses become function, file and line')
        .choices(['auto', 'llvm-symbolizer', 'addr2line'])
        .default('auto'),
    )
    .addOption(
      new Option('--format <format>', "profile.<node>.<context>.<thread> files, or TAU's single merged file tauprofile.xml (default: TAU_PROFILE_FORMAT, else profile)").choices([
        'profile',
        'merged',
      ]),
    )
    .option('--per-node', 'one process per node of an MPI job step (mpirun --map-by ppr:1:node ...): each resolves its nodes\' raw subdirectories, the last writes the profile (docs/mpi.md)')
    .action(async (raw: string[], opts: ResolveCliOptions) => {
      if (opts.perNode) return perNode(raw, opts);
      const { raw: files, orphanTraces } = collectInputs(raw);
      const outDir = opts.output ?? defaultOutputDir();
      // Interrupted (Ctrl-C, a time limit): the partial output goes, and that is said.
      const interrupted = (s: NodeJS.Signals) => () => {
        process.stderr.write(`\nhyprof: interrupted by ${s}; ${abandonResolve() || 'nothing was written'}\n`);
        process.exit(128 + signalNumber(s));
      };
      const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map((s) => [s, interrupted(s)] as const);
      for (const [s, h] of handlers) process.on(s, h);
      const summary = await resolveStep(files, outDir, {
        callpath: opts.callpath,
        callpathDepth: opts.callpathDepth,
        keepAddresses: opts.keepAddresses,
        symbolizer: opts.symbolizer,
        format: opts.format,
        ...(fromOneRun(files) ? { fromRun: true } : {}),
        // A directory given is a run's raw directory: all the run left.
        ...(raw.some(isDirectory) ? { rawDirectory: true } : {}),
        orphanTraces,
      });
      for (const [s, h] of handlers) process.off(s, h);
      for (const note of resolveNotes(summary)) process.stderr.write(`${note}\n`);
      process.stderr.write(`hyprof: ${describeOutput(summary, outDir)}\n`);
      // The raw directory ranks of an MPI job left behind is hyprof's own: once resolved, it goes.
      for (const input of raw) {
        if (basename(resolve(input)) === RANK_RAW_DIR && statSync(input).isDirectory()) {
          rmSync(input, { recursive: true, force: true });
          process.stderr.write(`hyprof: ${input} removed (resolved)\n`);
        }
      }
    });
}

/** `hyprof resolve --per-node RAW`: this process's part of a resolve run as a step of the job (run/node-step.ts). */
async function perNode(raw: string[], opts: ResolveCliOptions): Promise<void> {
  if (raw.length !== 1 || !isDirectory(raw[0])) {
    throw new UserError(`hyprof resolve --per-node takes one raw directory (the job's <dir>/${RANK_RAW_DIR}), not ${raw.map((r) => `'${r}'`).join(' ')}`);
  }
  const outDir = opts.output ?? defaultOutputDir();
  const interrupted = (s: NodeJS.Signals) => () => {
    process.stderr.write(`\nhyprof: interrupted by ${s}; ${abandonNodeStep() || 'nothing was written'}\n`);
    process.exit(128 + signalNumber(s));
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]) process.on(s, interrupted(s));
  const summary = await nodeStep(raw[0], outDir, {
    callpath: opts.callpath,
    callpathDepth: opts.callpathDepth,
    keepAddresses: opts.keepAddresses,
    symbolizer: opts.symbolizer,
    format: opts.format,
  });
  // Only the process that reduced speaks: one summary for the job, not one per node.
  if (!summary) return;
  for (const note of resolveNotes(summary)) process.stderr.write(`${note}\n`);
  process.stderr.write(`hyprof: ${describeOutput(summary, outDir)}; resolved on ${summary.processes} process${summary.processes === 1 ? '' : 'es'} from ${summary.nodes} node director${summary.nodes === 1 ? 'y' : 'ies'}\n`);
  if (basename(resolve(raw[0])) === RANK_RAW_DIR) {
    rmSync(raw[0], { recursive: true, force: true });
    process.stderr.write(`hyprof: ${raw[0]} removed (resolved)\n`);
  }
}
