/**
 * Reading TAU profile directories: what is found, and what is refused with a message.
 */
import test from 'ava';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { repoRoot, tmpDir, tauReferenceDir } from './helpers/native.js';

const reference = join(tauReferenceDir, 'probes', 'profile.0.0.0');

test('an empty MULTI__ directory does not hide the profile files beside it', (t) => {
  const dir = tmpDir('reader');
  copyFileSync(reference, join(dir, 'profile.0.0.0'));
  mkdirSync(join(dir, 'MULTI__leftover'));
  const p = readTauProfileDir(dir);
  t.deepEqual(p.metrics, ['TIME']);
  t.is(p.threads[0][0].events.find((e) => e.name === 'main')?.incl, 2707231);
});

test('a directory without profiles, a missing one and a file are refused by name', (t) => {
  const empty = tmpDir('reader-empty');
  t.throws(() => readTauProfileDir(empty), {
    message: `${empty}: no TAU profile files (profile.<node>.<context>.<thread>) found`,
  });
  t.throws(() => readTauProfileDir(join(empty, 'nope')), { message: `${join(empty, 'nope')}: no such directory` });
  const file = join(empty, 'file');
  writeFileSync(file, 'x');
  t.throws(() => readTauProfileDir(file), { message: `${file}: not a directory` });
});

test('a corrupt file is refused with its name and line', (t) => {
  const dir = tmpDir('reader-bad');
  writeFileSync(join(dir, 'profile.0.0.0'), '2 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n"a" 1 0 1 1 0 GROUP="X"\n0 aggregates\n');
  t.throws(() => readTauProfileDir(dir), { message: /profile\.0\.0\.0:4: not a TAU profile: expected an event line/ });
});
