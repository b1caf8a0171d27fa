/**
 * Google's pprof, the real consumer of `hyprof export --format pprof`: built offline from Debian's
 * Go sources (golang-go and golang-github-google-pprof-dev, scripts/install-deps.sh) in GOPATH mode
 * (GO111MODULE=off), once per machine into a cache directory under the system's temporary
 * directory; later test runs reuse the binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GOPATH = '/usr/share/gocode';
const SOURCE = join(GOPATH, 'src', 'github.com', 'google', 'pprof');

/** Why Google pprof cannot be built here, or null when it can. */
export function googlePprofMissing(): string | null {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    return 'go is not installed (Debian package golang-go)';
  }
  return existsSync(SOURCE) ? null : `${SOURCE} is missing (Debian package golang-github-google-pprof-dev)`;
}

/** The path of a built pprof binary (built on first use). */
export function googlePprof(): string {
  const dir = join(tmpdir(), 'hyprof-test-cache', 'google-pprof');
  const bin = join(dir, 'pprof');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const partial = `${bin}.${process.pid}`;
  execFileSync('go', ['build', '-o', partial, 'github.com/google/pprof'], {
    env: { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: join(dir, 'go-build'), GOFLAGS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Whole or not at all: a test process that runs beside this one sees the finished binary only.
  renameSync(partial, bin);
  return bin;
}

/** `pprof <args>` with no browser, no symbolization service and no home-directory state. */
export function runPprof(args: string[]): string {
  return execFileSync(googlePprof(), args, {
    encoding: 'utf8',
    env: { ...process.env, PPROF_TMPDIR: join(tmpdir(), 'hyprof-test-cache', 'pprof-tmp'), PPROF_BINARY_PATH: '/nonexistent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
