/**
 * Test helpers for MPI programs: compile with the MPI compilers (mpicc, mpif90), run with mpirun
 * (oversubscribed, as root where the tests run as root), read one rank's values from a profile.
 * MPI is required by the test suite (README): without it these fail, saying what is missing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { haveTool, libDir, testNativeDir, tmpDir } from './native.js';
import type { TauProfile, TauThreadProfile } from '../../src/profile/tau-model.js';

/** Why the MPI tests cannot run here, or null when they can. */
export function mpiMissing(): string | null {
  for (const tool of ['mpicc', 'mpif90', 'mpirun']) {
    if (!haveTool(tool)) return `${tool} is not installed: the test suite needs Open MPI (scripts/install-deps.sh: openmpi-bin, libopenmpi-dev)`;
  }
  return null;
}

/** mpirun's options for this machine: more ranks than cores, and root allowed (CI runs as root). */
export function mpirunArgs(np: number): string[] {
  return ['--oversubscribe', '--allow-run-as-root', '--mca', 'btl', 'self,vader', '-np', String(np)];
}

/**
 * An MPI C program from test/native, built with mpicc; linked against hyprof and the MPI layer when
 * `linked` (as $(hyprof config --libs --mpi) does). `more.env` chooses mpicc's compiler (OMPI_CC).
 */
export function compileMpiC(name: string, source: string, linked = false, more: { env?: Record<string, string>; cflags?: string[] } = {}): string {
  const out = join(tmpDir(`mpicc-${name}`), name);
  const args = [
    '-O1',
    '-g',
    ...(more.cflags ?? []),
    join(testNativeDir, source),
    '-o',
    out,
    ...(linked ? [`-L${libDir}`, `-Wl,-rpath,${libDir}`, '-lhyprof_mpi', '-lhyprof'] : []),
  ];
  const r = spawnSync('mpicc', args, { encoding: 'utf8', env: { ...process.env, ...more.env } });
  if (r.status !== 0) throw new Error(`mpicc ${args.join(' ')} failed:\n${r.stderr}`);
  return out;
}

/** A Fortran MPI program from test/native, compiled with mpif90. */
export function compileMpiFortran(name: string, source: string): string {
  const out = join(tmpDir(`f-${name}`), name);
  const r = spawnSync('mpif90', ['-O1', '-g', join(testNativeDir, source), '-o', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mpif90 ${source} failed:\n${r.stderr}`);
  return out;
}

/** The main thread (thread 0, context 0) of a rank. */
export function rankMain(profile: TauProfile, node: number): TauThreadProfile | undefined {
  return profile.threads[0].find((t) => t.node === node && t.context === 0 && t.thread === 0);
}

/** Calls of a flat event of a thread (0 when absent). */
export function calls(t: TauThreadProfile | undefined, name: string): number {
  return t?.events.find((e) => e.name === name)?.calls ?? 0;
}

/** count and sum of an atomic user event of a thread. */
export function userEvent(t: TauThreadProfile | undefined, name: string): { count: number; sum: number } {
  const u = t?.userEvents.find((e) => e.name === name);
  return u ? { count: u.count, sum: Math.round(u.mean * u.count) } : { count: 0, sum: 0 };
}
