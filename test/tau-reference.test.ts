import test from 'ava';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { formatThreadProfile } from '../src/profile/tau-writer.js';
import { repoRoot, tauReferenceDir } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';

/** TAU-written reference profiles (shared/reference/tau beside the checkout, or HYPROF_TAU_REFERENCE). */
const REF = tauReferenceDir;
const variants = existsSync(REF) ? readdirSync(REF).filter((d) => existsSync(join(REF, d, 'profile.0.0.0'))) : [];

test('every reference profile parses; event counts equal line 1', (t) => {
  t.true(variants.length >= 20, `found ${variants.length} reference profiles`);
  for (const v of variants) {
    const p = readTauProfileDir(join(REF, v));
    for (const th of p.threads[0]) {
      const file = join(REF, v, `profile.${th.node}.${th.context}.${th.thread}`);
      const n = Number(readFileSync(file, 'utf8').split('\n')[0].split(' ')[0]);
      t.is(th.events.length, n, v);
      t.is(th.metric, 'TIME');
    }
  }
});

test('spot-check known reference values', (t) => {
  const probes = readTauProfileDir(join(REF, 'probes')).threads[0][0];
  const main = probes.events.find((e) => e.name === 'main')!;
  t.deepEqual(main, { name: 'main', calls: 1, subrs: 5, excl: 124, incl: 2707231, group: 'TAU_USER' });
  t.is(probes.metadata.find(([k]) => k === 'Starting Timestamp')?.[1], '1795303410183690');
  const hybrid = readTauProfileDir(join(REF, 'hybrid')).threads[0][0];
  const ctx = hybrid.events.find((e) => e.name === 'Iteration 0  => [CONTEXT] Iteration 0')!;
  t.is(ctx.group, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH');
  t.is(ctx.calls, 382);
});

test('our writer reproduces TAU reference files byte for byte (event and aggregate lines)', (t) => {
  for (const v of ['probes', 'probes_callpath', 'phase_probes', 'hybrid_unwind']) {
    const file = join(REF, v, 'profile.0.0.0');
    const th = readTauProfileDir(join(REF, v)).threads[0][0];
    const ours = formatThreadProfile(th).split('\n');
    const theirs = readFileSync(file, 'utf8').split('\n');
    t.is(ours[0], theirs[0], v);
    // Line 2 (metadata) differs only in escaping choices; every event line must be identical.
    t.deepEqual(ours.slice(2), theirs.slice(2), v);
  }
});

test("TAU's own reader (strict) accepts every reference profile and reports its functions", (t) => {
  for (const v of variants) {
    const r = readWithTau(join(REF, v));
    t.is(r.status, 0, `${v}: ${tauReaderComplaints(r)}`);
    t.true(r.ok, v);
    const ours = readTauProfileDir(join(REF, v)).threads[0];
    t.is(r.num_threads, ours.length, v);
    // The reader derives `[SUMMARY]` entries (group TAU_DERIVED) itself; the others are the file's.
    const read = r.threads[0].functions.filter((f) => !String(f.groups).includes('TAU_DERIVED'));
    t.is(read.length, ours[0].events.length, v);
  }
});

test("TAU's reader in strict mode refuses a path whose prefix has no flat entry (the helper can fail)", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hyprof-taureader-'));
  const body = [
    '2 templated_functions_MULTI_TIME',
    '# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name</name><value>TIME</value></attribute></metadata>',
    '".TAU application" 1 1 10 20 0 GROUP="TAU_UTILITY" ',
    '".TAU application => missing" 1 0 10 10 0 GROUP="TAU_CALLPATH|TAU_USER" ',
    '0 aggregates',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'profile.0.0.0'), body);
  const r = readWithTau(dir);
  t.not(r.status, 0, tauReaderComplaints(r));
  t.true(r.callpath_warnings.length > 0 || r.diagnostics.length > 0);
});
