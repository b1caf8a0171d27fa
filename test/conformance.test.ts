/**
 * The conformance check every profile of the tests passes through (helpers/conformance.ts) can fail:
 * it refuses profiles that break each part of the invariant, among them TAU's own hybrid profile,
 * whose samples add up to more than their timers; and it runs on the output of the hyprof command
 * however a test starts it (node's own flags, as size-limits.test.ts does; mpirun; a shell) and in
 * either of its formats (thread files, TAU's merged tauprofile.xml). A stacks file beside a profile
 * (complete stacks, profile/stacks-file.ts) must hold the samples and values of its [CONTEXT] entries.
 */
import test from 'ava';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertConformant, conformanceProblems, wasChecked } from './helpers/conformance.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { cliPath, compileC, hyprof, run, tauReferenceDir, tmpDir } from './helpers/native.js';

const FILE = 'profile.0.0.0';

/** A copy of a TAU-written reference profile with its event lines edited; the count line follows. */
function edited(variant: string, edit: (lines: string[]) => string[]): string {
  const dir = tmpDir(`conf-${variant}`);
  cpSync(join(tauReferenceDir, variant), dir, { recursive: true });
  const text = readFileSync(join(dir, FILE), 'utf8').split('\n');
  const count = Number(/^(\d+) /.exec(text[0])![1]);
  const events = edit(text.slice(2, 2 + count));
  writeFileSync(join(dir, FILE), [text[0].replace(/^\d+/, String(events.length)), text[1], ...events, ...text.slice(2 + count)].join('\n'));
  return dir;
}

test('a profile that keeps the invariant passes', (t) => {
  t.deepEqual(conformanceProblems(join(tauReferenceDir, 'probes_callpath')), []);
  t.notThrows(() => assertConformant(edited('probes_callpath', (l) => l)));
});

test('TAU\'s own hybrid profile is refused: its samples add up to more than the timers they hang under', (t) => {
  const problems = conformanceProblems(join(tauReferenceDir, 'hybrid'));
  t.true(problems.some((p) => /: the samples under "Iteration \d" add up to \d+, more than its exclusive \d+/.test(p)), problems.join('\n'));
  t.true(problems.some((p) => /: the collapsed export adds up to \d+, the root's inclusive value is \d+/.test(p)), problems.join('\n'));
  t.throws(() => assertConformant(join(tauReferenceDir, 'hybrid')), { message: /breaks the conformance invariant/ });
});

test('a path part without its flat entry is refused, by TAU\'s reader too', (t) => {
  const dir = edited('probes_callpath', (l) => l.filter((x) => !x.startsWith('"Iteration 2" ')));
  const problems = conformanceProblems(dir);
  t.true(problems.some((p) => p.startsWith("TAU's reader (strict) does not accept")), problems.join('\n'));
  t.true(problems.some((p) => p.endsWith('"Iteration 2" (part of "main => Iteration 2") has no flat entry')), problems.join('\n'));
});

test('sub-timers adding up to more than their parent are refused', (t) => {
  const dir = edited('probes_callpath', (l) => l.map((x) => x.replace(/^"main => Iteration 0" 1 0 481220 481220 /, '"main => Iteration 0" 1 0 481220 2481220 ')));
  const problems = conformanceProblems(dir);
  t.true(problems.some((p) => /: the timers under "main" add up to \d+, more than its inclusive 1830032$/.test(p)), problems.join('\n'));
});

test('two spellings of one name are refused', (t) => {
  const dir = edited('probes_callpath', (l) => [...l, '"Iteration  4" 1 0 1 1 0 GROUP="TAU_USER" ']);
  const problems = conformanceProblems(dir);
  t.true(problems.some((p) => /: "Iteration 4" and "Iteration {2}4" are one name to TAU's readers$/.test(p)), problems.join('\n'));
});

test('the hyprof command started with node\'s own flags has its output checked too', async (t) => {
  const exe = compileC('conf_nesting', ['core_nesting.c']);
  const dir = join(tmpDir('conf-flags'), 'prof');
  const r = await run(process.execPath, ['--stack-size=2000', cliPath, 'run', '--no-sampling', '--dir', dir, '--', exe]);
  t.is(r.code, 0, r.stderr);
  t.true(wasChecked(dir), `${dir} was not checked`);
});

test('a profile in TAU\'s merged format (tauprofile.xml) is checked too', async (t) => {
  const exe = compileC('conf_merged', ['core_nesting.c']);
  const dir = join(tmpDir('conf-merged'), 'prof');
  const r = await hyprof(['run', '--no-sampling', '--format', 'merged', '--dir', dir, '--', exe]);
  t.is(r.code, 0, r.stderr);
  t.true(existsSync(join(dir, 'tauprofile.xml')));
  t.true(wasChecked(dir), `${dir} was not checked`);
  t.deepEqual(conformanceProblems(dir), []);
});

/**
 * TAU's sampled profile with a stacks file beside it: the samples of its one sample context
 * ("main => [CONTEXT] main": 1768 samples, 1825082 µs) as one stack main -> multiply, changed by
 * `samples` and `value` to break the sums.
 */
function withStacks(variant: string, samples: number, value: number): string {
  const dir = tmpDir(`conf-stacks-${variant}`);
  cpSync(join(tauReferenceDir, 'sampling_mainonly'), dir, { recursive: true });
  const context = readFileSync(join(dir, FILE), 'utf8').split('\n').map((l) => /^"(main +=> \[CONTEXT\] main)" /.exec(l)?.[1]).find(Boolean)!;
  const stacks = {
    format: 'hyprof-stacks',
    version: 1,
    node: 0,
    context: 0,
    metrics: ['TIME'],
    frames: [
      ['main', 'matmult.c', 30, 'matmult'],
      ['multiply', 'matmult.c', 13, 'matmult'],
    ],
    threads: [{ thread: 0, contexts: [context], parent: [-1, 0], frame: [0, 1], samples: [0, samples], values: [[0, value]], merged: 0 }],
  };
  writeFileSync(join(dir, 'stacks.0.0.json'), JSON.stringify(stacks));
  return dir;
}

test('a stacks file whose samples or values do not add up to its [CONTEXT] entry is refused', (t) => {
  t.deepEqual(conformanceProblems(withStacks('whole', 1768, 1825082)), []);
  const values = conformanceProblems(withStacks('values', 1768, 1825082 + 5000));
  t.true(values.some((p) => /^thread 0,0,0 \(TIME\): the stacks under "main +=> \[CONTEXT\] main" add up to 1830082, its entry to 1825082$/.test(p)), values.join('\n'));
  const samples = conformanceProblems(withStacks('samples', 1767, 1825082));
  t.true(samples.some((p) => /^thread 0,0,0 \(TIME\): the stacks under "main +=> \[CONTEXT\] main" hold 1767 samples, its entry 1768$/.test(p)), samples.join('\n'));
  t.throws(() => assertConformant(withStacks('assert', 1768, 1825082 + 5000)), { message: /breaks the conformance invariant/ });
});

test('a stacks file that names a context the thread does not have is refused', (t) => {
  const dir = withStacks('context', 1768, 1825082);
  const file = join(dir, 'stacks.0.0.json');
  writeFileSync(file, readFileSync(file, 'utf8').replace('[CONTEXT] main', '[CONTEXT] elsewhere'));
  const problems = conformanceProblems(dir);
  t.true(problems.some((p) => /: the stacks file names the context "main +=> \[CONTEXT\] elsewhere", which is no entry of the thread$/.test(p)), problems.join('\n'));
});

test("TAU's reader is asked again when a file changed in place, within the same size and moment; an unchanged input is answered once", (t) => {
  // helpers/tau-reader.ts keeps each answer by the input's path and bytes (a test reading a profile
  // the run helpers have just checked starts Java once, not twice).
  const dir = tmpDir('conf-reader-answers');
  cpSync(join(tauReferenceDir, 'probes'), dir, { recursive: true });
  const file = join(dir, FILE);
  const good = readFileSync(file, 'utf8');
  t.true(good.includes(' 2707231 '));
  const first = readWithTau(dir);
  t.true(first.ok, tauReaderComplaints(first));
  // A negative inclusive time, the same number of bytes, written at once: TAU's reader complains.
  writeFileSync(file, good.replace(' 2707231 ', ' -707231 '));
  const bad = readWithTau(dir);
  t.false(bad.ok, 'the edited file was read again');
  t.not(bad.status, 0);
  writeFileSync(file, good);
  const again = readWithTau(dir);
  t.deepEqual(again, first);
  // An answer handed out is the test's own: changing it changes no later answer.
  again.threads.length = 0;
  t.deepEqual(readWithTau(dir), first);
});
