/**
 * Test helpers for traces: OTF2 archives written by the real OTF2 library (test/native/otf2_gen.c,
 * linked with libotf2) following hyprof's conventions (docs/trace.md), and OTF2's own tools to read
 * them back (otf2-print). OTF2 is optional for hyprof: without the library these tests are skipped,
 * and say why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { haveTool, libDir, libPath, testNativeDir, tmpDir } from './native.js';
import { otf2WriterPath } from '../../src/base/package-root.js';

const reader = join(libDir, 'hyprof-otf2-read');

/** Why the trace tests cannot run here, or null. */
export function otf2Missing(): string | null {
  if (!existsSync('/usr/include/otf2/otf2.h')) {
    return 'the OTF2 library is not installed (scripts/install-deps.sh: libopen-trace-format2-dev, otf2-tools)';
  }
  if (!existsSync(reader)) return `${reader} was not built (npm run build, with libopen-trace-format2-dev installed)`;
  if (!haveTool('otf2-print')) return 'otf2-print is not installed (scripts/install-deps.sh: otf2-tools)';
  return null;
}

/** python3-otf2 is a Debian package: the system's python reads it. */
export const PYTHON = '/usr/bin/python3';

/** Why the tests that trace a real run and read its archive with OTF2's own readers cannot run here, or null. */
export function traceRunMissing(): string | null {
  if (!existsSync(libPath)) return `the native runtime is not built: ${libPath}`;
  if (!existsSync(otf2WriterPath)) return `hyprof-otf2 is not built (no OTF2 library, libopen-trace-format2-dev): ${otf2WriterPath}`;
  if (!haveTool('otf2-print')) return 'otf2-print is not installed (otf2-tools)';
  if (spawnSync(PYTHON, ['-c', 'import otf2']).status !== 0) return `${PYTHON} cannot import otf2 (python3-otf2)`;
  return null;
}

let generator: string | undefined;
/** The archive writer, built once per test process. */
function otf2Gen(): string {
  if (generator) return generator;
  const out = join(tmpDir('otf2-gen'), 'otf2_gen');
  const r = spawnSync('gcc', ['-O2', '-g', join(testNativeDir, 'otf2_gen.c'), '-o', out, '-lopen-trace-format2'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building otf2_gen failed:\n${r.stderr}`);
  return (generator = out);
}

/** Known times of the `run` scenario (test/native/otf2_gen.c), in ns. */
export const RUN = {
  lateSender: 2_000_000,
  lateReceiver: 1_000_000,
  allreduceStep: 500_000,
  bcastLate: 700_000,
  /** Task 1: switched away at o+510 µs, resumed on another thread at o+1500 µs. */
  suspension: 990_000,
  /** Iteration 2's extra solve time over iteration 1 (3 ms) and its extra length (2.5 ms). */
  slowPhaseExtra: 2_500_000,
} as const;

/** A directory holding an OTF2 archive `traces` of a scenario of test/native/otf2_gen.c (`big`: about n events). */
export function writeArchive(scenario: 'run' | 'big' | 'misnested' | 'cut', n?: number, dir = tmpDir(`trace-${scenario}`)): string {
  mkdirSync(dir, { recursive: true });
  const args = [dir, scenario, ...(n !== undefined ? [String(n)] : [])];
  const r = spawnSync(otf2Gen(), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`otf2_gen ${args.join(' ')} failed:\n${r.stderr}`);
  return dir;
}

/** otf2-print's event lines of an archive (OTF2's own reader), split into fields. */
export function otf2PrintEvents(dir: string): Array<{ kind: string; location: number; time: number; rest: string }> {
  const r = spawnSync('otf2-print', [join(dir, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`otf2-print failed:\n${r.stderr}`);
  const out = [];
  for (const line of r.stdout.split('\n')) {
    const m = /^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$/.exec(line);
    if (m) out.push({ kind: m[1], location: +m[2], time: +m[3], rest: m[4] });
  }
  return out;
}
