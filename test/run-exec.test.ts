/**
 * A program that replaces itself by exec (test/native/run_exec.c, linked with -lhyprof): what it
 * measured before the exec is written and kept, under `hyprof run` and when it resolves its own
 * profile at exit. Each earlier image of a process is a context of its own, named in the summary
 * line and in its metadata; a failed exec changes nothing; a vfork child's exec writes nothing; an
 * exec from a signal handler on a small alternate stack works as any other.
 * Every profile passes the conformance check (helpers/native.ts) and TAU's strict reader.
 */
import test from 'ava';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { calls } from './helpers/profile-queries.js';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

let program = '';
let staticProgram = '';
test.before(() => {
  program = compileC('run_exec', ['run_exec.c']);
  // A program the runtime is never loaded into (LD_PRELOAD means nothing to a static executable).
  staticProgram = compileC('static_true', ['static_true.c'], { link: false, ldflags: ['-static'] });
});

function threads(dir: string): TauThreadProfile[] {
  const r = readWithTau(dir);
  if (!r.ok) throw new Error(tauReaderComplaints(r));
  return readTauProfileDir(dir).threads[0];
}

function meta(t: TauThreadProfile, key: string): string | undefined {
  return t.metadata.find(([k]) => k === key)?.[1];
}

function byContext(ts: TauThreadProfile[], context: number, thread = 0): TauThreadProfile {
  const t = ts.find((x) => x.context === context && x.thread === thread);
  if (!t) throw new Error(`no thread 0,${context},${thread} among ${ts.map((x) => `${x.node},${x.context},${x.thread}`).join(' ')}`);
  return t;
}

const replacedLine = (context: number, exe: string) =>
  new RegExp(`^hyprof: profile of \\d+ threads written to .*; profile\\.0\\.${context}\\.\\* is ${exe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} before it replaced itself by exec$`, 'm');

test('hyprof run: work before an exec of /bin/true is kept, in a context of its own, named as the replaced image', async (t) => {
  const out = join(tmpDir('exec-true'), 'out');
  const r = await hyprof(['run', '--dir', out, '--', program, 'true', '7']);
  t.is(r.code, 0, r.stderr);
  // /bin/true is dynamically linked: the runtime is preloaded into it too, and it is the last image.
  const ts = threads(out);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1]);
  const before = byContext(ts, 1);
  t.is(calls(before, 'work before exec'), 7);
  t.is(meta(before, 'hyprof Image'), 'replaced by exec');
  t.is(meta(before, 'hyprof Written'), 'before exec replaced the program');
  t.is(meta(before, 'Executable'), realpathSync(program));
  t.regex(meta(before, 'Command Line') ?? '', / true 7$/);
  const last = byContext(ts, 0);
  t.is(meta(last, 'Executable'), realpathSync('/bin/true'));
  t.is(meta(last, 'hyprof Image'), undefined);
  t.is(calls(last, 'work before exec'), undefined);
  t.is(meta(before, 'pid'), meta(last, 'pid'));
  t.regex(r.stderr, replacedLine(1, realpathSync(program)));
});

test('hyprof run: an exec into a program without the runtime leaves the work before it as the profile', async (t) => {
  const out = join(tmpDir('exec-static'), 'out');
  const r = await hyprof(['run', '--dir', out, '--', program, 'static', staticProgram]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /static program ran/);
  const ts = threads(out);
  t.deepEqual(ts.map((x) => x.context), [0]);
  t.is(calls(ts[0], 'work before exec'), 3);
  t.is(meta(ts[0], 'hyprof Image'), 'replaced by exec');
  t.regex(r.stderr, /^hyprof: profile of 1 thread written to \S+ \(profile\.0\.0\.\*\)$/m);
  t.notRegex(r.stderr, /exit handlers/);
});

test('hyprof run: a program that exec\'s itself has both images, in distinct contexts, the earlier one named', async (t) => {
  const out = join(tmpDir('exec-self'), 'out');
  const r = await hyprof(['run', '--dir', out, '--', program, 'self', '4', '6']);
  t.is(r.code, 0, r.stderr);
  const ts = threads(out);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1]);
  const first = byContext(ts, 1);
  const second = byContext(ts, 0);
  t.is(calls(first, 'first image'), 4);
  t.is(calls(first, 'second image'), undefined);
  t.is(calls(second, 'second image'), 6);
  t.is(calls(second, 'first image'), undefined);
  t.is(meta(first, 'hyprof Image'), 'replaced by exec');
  t.is(meta(second, 'hyprof Image'), undefined);
  t.regex(meta(first, 'Command Line') ?? '', / self 4 6$/);
  t.is(meta(second, 'Command Line'), 'run_exec second 6');
  t.regex(r.stderr, replacedLine(1, realpathSync(program)));
});

test('hyprof run: an exec while another thread has a timer open writes that thread, its timer closed at the exec', async (t) => {
  const out = join(tmpDir('exec-threads'), 'out');
  const r = await hyprof(['run', '--dir', out, '--', program, 'threads']);
  t.is(r.code, 0, r.stderr);
  const ts = threads(out);
  const main = byContext(ts, 1, 0);
  const worker = byContext(ts, 1, 1);
  t.is(calls(main, 'main before exec'), 2);
  t.is(calls(worker, 'worker'), 1);
  t.is(meta(worker, 'hyprof timers closed at exit'), 'worker');
  t.is(meta(worker, 'hyprof Image'), 'replaced by exec');
  // The worker waited through main's two timed calls: its open timer holds at least their time.
  const incl = (th: TauThreadProfile, name: string) => th.events.find((e) => displayName(e.name) === name)!.incl;
  t.true(incl(worker, 'worker') >= incl(main, 'main before exec'), `${incl(worker, 'worker')} < ${incl(main, 'main before exec')}`);
  t.is(calls(byContext(ts, 0), 'second image'), 1);
  t.deepEqual(ts.filter((x) => x.context === 0).map((x) => x.thread), [0]);
});

test('hyprof run: a failed exec leaves one image, measured on; a later exec keeps what came before and after the failure', async (t) => {
  const dir = tmpDir('exec-fail');
  // Enough work after the failure for the resumed sampling to land in it (1 ms period, wall clock).
  const r = await hyprof(['run', '--dir', join(dir, 'alone'), '--period', '1000', '--', program, 'fail', '3', '60']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /exec failed: No such file or directory/);
  const ts = threads(join(dir, 'alone'));
  t.deepEqual(ts.map((x) => x.context), [0]);
  t.is(calls(ts[0], 'before failed exec'), 3);
  t.is(calls(ts[0], 'after failed exec'), 60);
  t.is(meta(ts[0], 'hyprof Image'), undefined);
  t.is(meta(ts[0], 'hyprof Written'), 'at exit');
  t.true(
    ts[0].events.some((e) => displayName(e.name) === '[CONTEXT] after failed exec'),
    'sampling goes on after the failed exec',
  );
  t.notRegex(r.stderr, /replaced itself/);

  const later = await hyprof(['run', '--dir', join(dir, 'then'), '--', program, 'fail', '3', '5', 'then-self']);
  t.is(later.code, 0, later.stderr);
  const both = threads(join(dir, 'then'));
  const first = byContext(both, 1);
  t.is(calls(first, 'before failed exec'), 3);
  t.is(calls(first, 'after failed exec'), 5);
  t.is(meta(first, 'hyprof Image'), 'replaced by exec');
  t.is(calls(byContext(both, 0), 'second image'), 1);
});

// Programs exec from signal handlers, some on a small alternate stack: the write before the exec,
// and the restart of sampling after a failed one, are async-signal-safe and fit SIGSTKSZ bytes
// (the program puts an inaccessible page below its alternate stack: an overflow is a SIGSEGV).
test('hyprof run: an exec from a signal handler on a SIGSTKSZ alternate stack keeps both images', async (t) => {
  const out = join(tmpDir('exec-handler'), 'out');
  const r = await hyprof(['run', '--dir', out, '--', program, 'handler-self', '4']);
  t.is(r.code, 0, r.stderr);
  const ts = threads(out);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1]);
  t.is(calls(byContext(ts, 1), 'first image'), 4);
  t.is(meta(byContext(ts, 1), 'hyprof Image'), 'replaced by exec');
  t.is(calls(byContext(ts, 0), 'second image'), 1);
  t.regex(r.stderr, replacedLine(1, realpathSync(program)));
});

test('hyprof run: a failed exec from a signal handler on a SIGSTKSZ alternate stack: measurement and sampling go on', async (t) => {
  const out = join(tmpDir('exec-handler-fail'), 'out');
  const r = await hyprof(['run', '--dir', out, '--period', '1000', '--', program, 'handler-fail', '3', '60']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /exec failed: No such file or directory/);
  const ts = threads(out);
  t.deepEqual(ts.map((x) => x.context), [0]);
  t.is(calls(ts[0], 'before failed exec'), 3);
  t.is(calls(ts[0], 'after failed exec'), 60);
  t.is(meta(ts[0], 'hyprof Written'), 'at exit');
  t.true(
    ts[0].events.some((e) => displayName(e.name) === '[CONTEXT] after failed exec'),
    'sampling goes on after the failed exec',
  );
  t.notRegex(r.stderr, /cannot start sampling/);
});

test('linked, resolving at exit: an exec from a signal handler on a SIGSTKSZ alternate stack resolves both images into one directory', async (t) => {
  const dir = tmpDir('exec-handler-linked');
  const r = await run(program, ['handler-self', '2'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '1' } });
  t.is(r.code, 0, r.stderr);
  const ts = threads(dir);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1]);
  t.is(calls(byContext(ts, 1), 'first image'), 2);
  t.is(calls(byContext(ts, 0), 'second image'), 1);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), []);
});

test('hyprof run: a vfork child that exec\'s writes nothing of its own; the parent\'s profile is whole', async (t) => {
  const out = join(tmpDir('exec-vfork'), 'out');
  const r = await hyprof(['run', '--dir', out, '--period', '1000', '--', program, 'vfork', '5']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /child status 0/);
  const ts = threads(out);
  const parent = byContext(ts, 0);
  t.is(calls(parent, 'parent'), 5);
  t.is(calls(parent, 'after vfork'), 60);
  t.is(meta(parent, 'hyprof Written'), 'at exit');
  // The child's exec touched nothing of the parent's (their memory is one): it is sampled on.
  t.true(parent.events.some((e) => displayName(e.name) === '[CONTEXT] after vfork'), 'the parent is sampled after the vfork');
  t.is(meta(parent, 'Executable'), realpathSync(program));
  // The child's /bin/true (the runtime is preloaded into it) is a process of its own, context = its
  // pid; nothing is written for the child before its exec.
  const others = ts.filter((x) => x.context !== 0);
  t.is(others.length, 1, ts.map((x) => `${x.context} ${meta(x, 'Executable')}`).join('; '));
  t.is(meta(others[0], 'Executable'), realpathSync('/bin/true'));
  t.is(meta(others[0], 'pid'), String(others[0].context));
  t.false(ts.some((x) => meta(x, 'hyprof Image') !== undefined));
  t.notRegex(r.stderr, /replaced itself/);
});

test('linked, resolving at exit: an exec of itself leaves one directory with both images, and no raw file', async (t) => {
  const dir = tmpDir('exec-linked');
  const r = await run(program, ['self', '2', '3'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  const ts = threads(dir);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1]);
  t.is(calls(byContext(ts, 1), 'first image'), 2);
  t.is(meta(byContext(ts, 1), 'hyprof Image'), 'replaced by exec');
  t.is(calls(byContext(ts, 0), 'second image'), 3);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), []);
  t.regex(r.stderr, replacedLine(1, realpathSync(program)));
  t.notRegex(r.stderr, /HYPROF_EXEC_RAW/);
});

test('linked, resolving at exit: a chain of three images resolves into one directory, earlier images first', async (t) => {
  const dir = tmpDir('exec-chain');
  const r = await run(program, ['chain', '2'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  const ts = threads(dir);
  t.deepEqual(ts.map((x) => x.context).sort(), [0, 1, 2]);
  // Numbered by start: image 2 ran first, image 0 last (the normal numbering).
  t.is(calls(byContext(ts, 1), 'image 2'), 1);
  t.is(calls(byContext(ts, 2), 'image 1'), 1);
  t.is(calls(byContext(ts, 0), 'image 0'), 1);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), []);
  t.regex(r.stderr, /profile\.0\.1\.\* is \S+, profile\.0\.2\.\* is \S+ before each replaced itself by exec$/m);
});

test('linked, resolving at exit: an exec into a program without the runtime says where the measurements are, once', async (t) => {
  const dir = tmpDir('exec-linked-static');
  const r = await run(program, ['static', staticProgram], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const raw = join(dir, raws[0]);
  t.is(
    r.stderr,
    `hyprof: this program replaces itself by exec with a program that is not measured; its measurements so far are written to ${raw}; ` +
      `turn them into a TAU profile with: npx hyprof resolve ${raw} -o ${dir}\n`,
  );
  const out = join(dir, 'out');
  const res = await hyprof(['resolve', raw, '-o', out]);
  t.is(res.code, 0, res.stderr);
  t.is(calls(threads(out)[0], 'work before exec'), 3);
});

test('linked, resolving at exit: an execle into itself with HYPROF_DISABLE=Enabled (as the runtime reads it) counts as a program that is not measured', async (t) => {
  const dir = tmpDir('exec-linked-disabled');
  const r = await run(program, ['self-disabled', '4'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1, r.stderr);
  t.regex(r.stderr, /^hyprof: this program replaces itself by exec with a program that is not measured; its measurements so far are written to /m);
  t.false(existsSync(join(dir, 'profile.0.0.0')), 'the new image measured nothing');
  const out = join(dir, 'out');
  const res = await hyprof(['resolve', join(dir, raws[0]), '-o', out]);
  t.is(res.code, 0, res.stderr);
  t.is(calls(threads(out)[0], 'first image'), 4);
});

test('HYPROF_EXEC_RAW naming a file that cannot be read is said, and the profile is written without it', async (t) => {
  const dir = tmpDir('exec-env');
  const r = await run(program, ['second', '2'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_EXEC_RAW: '/nonexistent/hyprof.x.1.2.raw' } });
  t.is(r.code, 0, r.stderr);
  t.regex(
    r.stderr,
    /^hyprof: HYPROF_EXEC_RAW names \/nonexistent\/hyprof\.x\.1\.2\.raw, the raw file of the image this program replaced by exec, but it cannot be read \(No such file or directory\): left out of this profile$/m,
  );
  t.true(existsSync(join(dir, 'profile.0.0.0')), r.stderr);
  t.is(calls(threads(dir)[0], 'second image'), 2);
});

test('HYPROF_EXEC_RAW holding a path longer than any raw file\'s is said with its length and left out; the paths beside it are read', async (t) => {
  const dir = tmpDir('exec-env-long');
  const long = `/${'x'.repeat(5000)}.raw`;
  const r = await run(program, ['second', '2'], {
    env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_EXEC_RAW: `${long}\n/nonexistent/hyprof.y.1.2.raw` },
  });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /^hyprof: HYPROF_EXEC_RAW holds a path of 5005 bytes, longer than any raw file's: left out of this profile$/m);
  // the entry after it is still read (and said, as it cannot be read)
  t.regex(r.stderr, /^hyprof: HYPROF_EXEC_RAW names \/nonexistent\/hyprof\.y\.1\.2\.raw, the raw file of the image this program replaced by exec, but it cannot be read/m);
  t.notRegex(r.stderr, /x{100}/, 'the long path is not printed whole');
  t.is(calls(threads(dir)[0], 'second image'), 2);
});
