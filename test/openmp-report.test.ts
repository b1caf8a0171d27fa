/**
 * `hyprof report --openmp / --diagnose` text, the analysis file beside the profile, and the errors a
 * user can meet: no OpenMP measurements in a directory, a damaged analysis file, a damaged OMPT section.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { OPENMP_FILE, readOpenmpFile } from '../src/analysis/openmp.js';
import { parseOmptSection } from '../src/analysis/openmp-raw.js';
import { renderDiagnoses, renderOpenmpReport } from '../src/report/report-openmp.js';
import { tmpDir } from './helpers/native.js';
import { encodeRaw } from './raw-fixture.js';
import { buildOmp, resolveOmp, runOmp } from './openmp-helpers.js';

const clangTest = test.serial;

clangTest('resolve writes openmp.json; the reports name regions, classes, blame and diagnoses', async (t) => {
  const r = await runOmp(buildOmp('omp_constructs', 'omp_constructs.c'), ['all'], { HYPROF_OPENMP: 'full' });
  const { openmp, out } = await resolveOmp(r);
  t.truthy(openmp);
  const again = readOpenmpFile(out);
  t.is(again.processes.length, 1);
  const text = renderOpenmpReport(again);
  t.regex(text, /OpenMP runtime: LLVM OMP/);
  t.regex(text, /thread idleness [\d.]+ ms/);
  t.regex(text, /instances\s+thread ms\s+overhead\s+sync\s+imbalance\s+lim\.par\.\s+thr\.mgmt\s+region/);
  t.regex(text, /all regions/);
  t.regex(text, /Critical \S+ \(omp_constructs\.c:\d+\)/);
  // Findings lead, strongest first; the context tree is indented, no row carries a full path.
  t.true(text.indexOf('Findings') < text.indexOf('Blame by calling context'));
  t.notRegex(text, / => /);
  for (const line of text.split('\n')) t.true(line.length <= 160, `line of ${line.length} characters: ${line}`);
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
  // Rebuild the file with the OMPT payload changed (its CRC and length made right): the framing is
  // sound, the section's own fields are not.
  const withOmpt = (change: (payload: Buffer) => Buffer) => {
    const parts: Buffer[] = [buf.subarray(0, 16)];
    for (let pos = 16; pos < buf.length; ) {
      const tag = buf.readUInt32LE(pos);
      const len = Number(buf.readBigUInt64LE(pos + 8));
      const payload = buf.subarray(pos + 16, pos + 16 + len);
      const kept = tag === 9 ? change(Buffer.from(payload)) : payload;
      const head = Buffer.alloc(16);
      head.writeUInt32LE(tag, 0);
      head.writeUInt32LE(crc32(kept) >>> 0, 4);
      head.writeBigUInt64LE(BigInt(kept.length), 8);
      parts.push(head, kept);
      pos += 16 + len;
    }
    return Buffer.concat(parts);
  };
  // Cut to 30 bytes: the fields run past the section's end.
  const e = t.throws(() => parseOmptSection('cut.raw', withOmpt((p) => p.subarray(0, 30))));
  t.regex(e!.message, /^cut\.raw: offset \d+: section OMPT: expected \d+ bytes for .+, section ends at \d+$/);
  // Written by a hyprof whose blame records had no sample counts (layout 2): refused, saying why.
  const old = t.throws(() => parseOmptSection('old.raw', withOmpt((p) => (p.writeUInt32LE(2, 0), p))));
  t.regex(old!.message, /^old\.raw: offset \d+: .*unknown layout 2 \(this hyprof reads layout 3; a raw file of another hyprof version: measure again\)$/);
  // A raw file of a program without OpenMP simply has no such section.
  t.is(parseOmptSection('none.raw', encodeRaw({ events: [{ kind: 3, name: '.TAU application' }], contexts: [], threads: [] })), null);
});
