/**
 * What `npm pack` puts in the package: what users need (the built CLI and viewer, the native sources
 * and build files for a build from source, the C-only install's Makefile, the docs, the license),
 * and nothing of the repository's own (tests, fixtures, benchmarks, TypeScript sources, source maps).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers/native.js';

interface PackEntry {
  path: string;
}

const packed = ((): string[] => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack --dry-run failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as Array<{ files: PackEntry[] }>)[0].files.map((f) => f.path).sort();
})();

test('the package holds the license, the built CLI and viewer, and what a build from source needs', (t) => {
  for (const f of [
    'LICENSE',
    'package.json',
    'README.md',
    'binding.gyp',
    'Makefile',
    'scripts/runtime-sources.sh',
    'scripts/build-mpi.sh',
    'scripts/build-otf2-read.sh',
    'scripts/build-otf2.sh',
    'scripts/install.sh',
    'scripts/install-mpi.sh',
    'dist/src/cli/main.js',
    'dist/src/index.js',
    'dist/src/index.d.ts',
    'dist/src/resolve/resolve-worker.js',
    'dist/src/events/thread-preload.cjs',
    'dist/web/index.html',
    'native/include/hyprof.h',
    'native/include/hyprof.hpp',
    'native/include/TAU.h',
    'native/include/Profile/Profiler.h',
    'native/include/hyprof_tau_metadata.h',
    'bin/hyprof-cc',
    'bin/hyprof-compile',
    'native/addon/addon.cc',
    'docs/install.md',
  ]) {
    t.true(packed.includes(f), `${f} is in the package`);
  }
  const license = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
  t.regex(license, /^MIT License\n\nCopyright \(c\) \d{4} hyprof developers\n/);
  t.is((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { license: string }).license, 'MIT');
});

test('every source file binding.gyp builds from is in the package', (t) => {
  const r = spawnSync('sh', ['scripts/runtime-sources.sh'], { cwd: repoRoot, encoding: 'utf8' });
  const sources = r.stdout.trim().split('\n');
  t.true(sources.length > 20, r.stderr);
  t.deepEqual(sources.filter((s) => !packed.includes(s)), []);
});

test('nothing of the repository\'s own: no tests, fixtures, benchmarks, TypeScript sources or source maps', (t) => {
  const unwanted = packed.filter(
    (f) =>
      f.endsWith('.map') ||
      /^(test|bench|web|src|dist\/test|dist\/bench|node_modules|build)\//.test(f) ||
      (f.endsWith('.ts') && !f.endsWith('.d.ts')) ||
      f.endsWith('.raw'),
  );
  t.deepEqual(unwanted, []);
  // Every file in the package is under one of the listed roots.
  const roots = /^(LICENSE|README\.md|package\.json|binding\.gyp|Makefile|bin\/|scripts\/|native\/|dist\/src\/|dist\/web\/|prebuilds\/|docs\/|examples\/)/;
  t.deepEqual(packed.filter((f) => !roots.test(f)), []);
});
