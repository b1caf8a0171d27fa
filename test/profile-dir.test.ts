/**
 * The profile directory as `hyprof report` finds it (src/profile/profile-dir.ts): the metric chosen,
 * whether the threads may belong to several ranks, and the raw files left unresolved beside the
 * profile, named with the command that resolves them. Profiles are written by the project's TAU
 * writer; raw files are only looked for by name here, never read.
 */
import test from 'ava';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../src/base/errors.js';
import { chooseMetric, listProfileDir, mayBeMultiRank, rawBeside, rawFilesUnder, RANK_RAW_DIR, unresolvedRaw } from '../src/profile/profile-dir.js';
import type { TauThreadProfile } from '../src/profile/tau-model.js';
import { writeTauProfile } from '../src/profile/tau-writer.js';
import { tmpDir } from './helpers/native.js';

const thread = (node: number, thread: number, metric: string, metadata: Array<[string, string]> = []): TauThreadProfile => ({
  node,
  context: 0,
  thread,
  metric,
  events: [{ name: 'main', group: 'TAU_DEFAULT', calls: 1, subrs: 0, excl: 10, incl: 10 }],
  userEvents: [],
  metadata,
});

test('chooseMetric: the first set unless --metric names one; an unknown metric names those there are', (t) => {
  const dir = tmpDir('pdir-metric');
  writeTauProfile({ dir, metrics: ['TIME', 'PAPI_TOT_CYC'], threads: [[thread(0, 0, 'TIME')], [thread(0, 0, 'PAPI_TOT_CYC')]] });
  const sets = listProfileDir(dir);
  t.deepEqual(sets.map((s) => s.metric), ['TIME', 'PAPI_TOT_CYC']);
  t.is(chooseMetric(sets).metric, 'TIME');
  t.is(chooseMetric(sets, 'PAPI_TOT_CYC').metric, 'PAPI_TOT_CYC');
  const e = t.throws(() => chooseMetric(sets, 'CPU_TIME'), { instanceOf: UserError });
  t.is(e.message, '--metric CPU_TIME: not in this profile (it has TIME, PAPI_TOT_CYC)');
});

test('mayBeMultiRank: several nodes, or a rank of an MPI run by its metadata; one process is not', (t) => {
  const one = tmpDir('pdir-one');
  writeTauProfile({ dir: one, metrics: ['TIME'], threads: [[thread(0, 0, 'TIME'), thread(0, 1, 'TIME')]] });
  t.false(mayBeMultiRank(listProfileDir(one)[0]!));

  const nodes = tmpDir('pdir-nodes');
  writeTauProfile({ dir: nodes, metrics: ['TIME'], threads: [[thread(0, 0, 'TIME'), thread(1, 0, 'TIME')]] });
  t.true(mayBeMultiRank(listProfileDir(nodes)[0]!));

  const rank = tmpDir('pdir-rank');
  writeTauProfile({ dir: rank, metrics: ['TIME'], threads: [[thread(0, 0, 'TIME', [['MPI World Size', '4']])]] });
  t.true(mayBeMultiRank(listProfileDir(rank)[0]!));
});

test('unresolved raw files of ranks in .hyprof-raw are counted and the resolve command is named', (t) => {
  const dir = tmpDir('pdir-ranks');
  writeTauProfile({ dir, metrics: ['TIME'], threads: [[thread(0, 0, 'TIME')]] });
  t.is(unresolvedRaw(dir), null);
  const raw = join(dir, RANK_RAW_DIR);
  mkdirSync(join(raw, 'rank1-abc'), { recursive: true });
  t.is(unresolvedRaw(dir), null, 'an empty rank directory is nothing unresolved');
  writeFileSync(join(raw, 'rank1-abc', 'app.1.raw'), '');
  t.is(unresolvedRaw(dir), `1 raw measurement file in ${raw} was not resolved (the launcher stopped those ranks first): hyprof resolve ${raw} -o ${dir}`);
  mkdirSync(join(raw, 'rank2-def'));
  writeFileSync(join(raw, 'rank2-def', 'app.2.raw'), '');
  writeFileSync(join(raw, 'rank2-def', 'app.2.raw.tmp.77'), '');
  t.deepEqual(rawFilesUnder(raw), [join(raw, 'rank1-abc', 'app.1.raw'), join(raw, 'rank2-def', 'app.2.raw')]);
  t.regex(unresolvedRaw(dir)!, /^2 raw measurement files in .* were not resolved/);
});

test('a directory without a profile but with raw files: the error says how to resolve them', (t) => {
  const dir = tmpDir('pdir-raw');
  t.is(rawBeside(dir), null);
  const empty = t.throws(() => listProfileDir(dir), { instanceOf: UserError });
  t.is(empty.message, `${dir}: no TAU profile files (profile.<node>.<context>.<thread>) found`);
  writeFileSync(join(dir, 'app.41.raw'), '');
  writeFileSync(join(dir, 'app.42.raw'), '');
  const e = t.throws(() => listProfileDir(dir), { instanceOf: UserError });
  t.is(
    e.message,
    `${dir}: no TAU profile files (profile.<node>.<context>.<thread>) found; it holds 2 raw measurement files (*.raw) not resolved yet ` +
      `(processes stopped by a signal write them): hyprof resolve ${dir} -o ${dir}`,
  );
  // the ranks' raw directory is named before raw files beside it
  mkdirSync(join(dir, RANK_RAW_DIR));
  writeFileSync(join(dir, RANK_RAW_DIR, 'app.43.raw'), '');
  t.regex(t.throws(() => listProfileDir(dir))!.message, /; 1 raw measurement file in .*\.hyprof-raw was not resolved/);
  // no directory at all: the reader's own error, no note
  t.is(t.throws(() => listProfileDir(join(dir, 'none')))!.message, `${join(dir, 'none')}: no such directory`);
});
