/**
 * `hyprof report --openmp / --diagnose` text, the analysis file beside the profile, and the errors a
 * user can meet: no OpenMP measurements in a directory, a damaged analysis file, a damaged OMPT section.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENMP_FILE, readOpenmpFile } from '../src/analysis/openmp.js';
import { parseOmptSection } from '../src/analysis/openmp-raw.js';
import { renderDiagnoses, renderOpenmpReport } from '../src/output/report-openmp.js';
import { tmpDir } from './helpers/native.js';
import { buildOmp, resolveOmp, runOmp } from './openmp-helpers.js';

const clangTest = test.serial;

clangTest('resolve writes openmp.json; the reports name regions, classes, blame and diagnoses', async (t) => {
  const r = await runOmp(buildOmp('omp_constructs', 'omp_constructs.c'), ['all']);
  const { openmp, out } = await resolveOmp(r);
  t.truthy(openmp);
  const again = readOpenmpFile(out);
  t.is(again.processes.length, 1);
  const text = renderOpenmpReport(again);
  t.regex(text, /OpenMP runtime: LLVM OMP/);
  t.regex(text, /thread idleness [\d.]+ ms/);
  t.regex(text, /exec\s+sync\s+imbalance\s+lim\.par\.\s+thr\.mgmt\s+overhead\s+region/);
  t.regex(text, /whole program/);
  t.regex(text, /OpenMP_Critical .*omp_constructs\.c/);
  t.regex(text, /Lock waiting blamed on release sites:/);
  const diag = renderDiagnoses(again);
  t.regex(diag, /Load imbalance in a work-shared loop at .*omp_constructs\.c:\d+/);
});

test('a directory without OpenMP measurements is a clear error', (t) => {
  const dir = tmpDir('omp-none');
  const e = t.throws(() => readOpenmpFile(dir));
  t.regex(e!.message, /no OpenMP measurements \(openmp\.json is missing\)/);
  t.regex(e!.message, /HYPROF_OPENMP is not off/);
  writeFileSync(join(dir, OPENMP_FILE), '{"processes": [');
  t.regex(t.throws(() => readOpenmpFile(dir))!.message, /openmp\.json: not valid JSON/);
  writeFileSync(join(dir, OPENMP_FILE), '{"something": 1}');
  t.regex(t.throws(() => readOpenmpFile(dir))!.message, /not an OpenMP analysis written by hyprof/);
});

clangTest('a truncated OMPT section is reported with the file and offset', async (t) => {
  const r = await runOmp(buildOmp('omp_constructs', 'omp_constructs.c'), ['imbalance']);
  const buf = readFileSync(r.raws[0]);
  const good = parseOmptSection('x.raw', buf);
  t.truthy(good);
  t.true(good!.constructs.length > 0);
  // Find the section header and shorten its declared length: the payload ends before its fields.
  let pos = 16;
  while (buf.readUInt32LE(pos) !== 9) pos += 16 + Number(buf.readBigUInt64LE(pos + 8));
  const cut = Buffer.from(buf);
  cut.writeBigUInt64LE(30n, pos + 8);
  const e = t.throws(() => parseOmptSection('cut.raw', cut));
  t.regex(e!.message, /^cut\.raw: offset \d+: section OMPT ends before /);
  // A file without the section (no OpenMP tool) simply has none.
  t.is(parseOmptSection('none.raw', buf.subarray(0, 16)), null);
});
