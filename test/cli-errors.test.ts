/** How the command reports errors, and the progress line: unit tests of program.ts and progress.ts. */
import test from 'ava';
import { UserError } from '../src/base/errors.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { EXIT_ENVIRONMENT, EXIT_INTERNAL, reportError } from '../src/cli/program.js';
import { createProgress } from '../src/base/progress.js';

/** Run `fn` with process.stderr.write captured. */
function captureStderr(fn: () => number): { status: number; text: string } {
  const original = process.stderr.write.bind(process.stderr);
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    return { status: fn(), text };
  } finally {
    process.stderr.write = original;
  }
}

test.serial('a UserError prints its message alone and exits with its status', (t) => {
  const r = captureStderr(() => reportError(new UserError('x.raw: offset 12: bad CRC', 2)));
  t.is(r.status, 2);
  t.is(r.text, 'hyprof: x.raw: offset 12: bad CRC\n');
});

test.serial('any other error is an internal error: exit 70, a hint, no stack unless HYPROF_DEBUG=1', (t) => {
  const saved = process.env.HYPROF_DEBUG;
  try {
    delete process.env.HYPROF_DEBUG;
    const r = captureStderr(() => reportError(new TypeError('cannot read properties of undefined')));
    t.is(r.status, EXIT_INTERNAL);
    t.is(
      r.text,
      'hyprof: internal error: cannot read properties of undefined\n' +
        'hyprof: this is a bug in hyprof; please report it with the command line (HYPROF_DEBUG=1 shows the stack)\n',
    );
    t.notRegex(r.text, /\n\s+at /);

    process.env.HYPROF_DEBUG = '1';
    const d = captureStderr(() => reportError(new Error('boom')));
    t.is(d.status, EXIT_INTERNAL);
    t.regex(d.text, /^hyprof: internal error: boom\nError: boom\n\s+at /);
  } finally {
    if (saved === undefined) delete process.env.HYPROF_DEBUG;
    else process.env.HYPROF_DEBUG = saved;
  }
});

test.serial('a failed system call is the environment: the file when known and the reason in words, exit 1', (t) => {
  // As node's fs raises them: a real ENOSPC from writing /dev/full (no path), a real ENOTDIR (a path).
  const thrown = (fn: () => void): unknown => {
    try {
      fn();
    } catch (err) {
      return err;
    }
    throw new Error('did not throw');
  };
  const full = captureStderr(() => reportError(thrown(() => writeFileSync('/dev/full', 'x'))));
  t.is(full.status, EXIT_ENVIRONMENT);
  t.is(full.text, 'hyprof: write failed: no space left on device (ENOSPC)\n');
  const notDir = captureStderr(() => reportError(thrown(() => mkdirSync('/dev/null/x'))));
  t.is(notDir.status, EXIT_ENVIRONMENT);
  t.is(notDir.text, 'hyprof: /dev/null/x: a part of the path is not a directory (ENOTDIR)\n');
});

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const stream = { isTTY, columns: 30, write: (s: string) => (writes.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, writes };
}

test('progress rewrites one line on a terminal and erases it when done', (t) => {
  const { stream, writes } = fakeStream(true);
  const p = createProgress(stream);
  p.update('hyprof: symbolizing /usr/lib/x86_64-linux-gnu/libc.so.6 (1/3)');
  t.is(writes.length, 1);
  t.true(writes[0].startsWith('\r\x1b[2K'));
  t.true(writes[0].length <= '\r\x1b[2K'.length + 29, 'cut to the terminal width');
  p.done();
  t.is(writes[1], '\r\x1b[2K');
});

test('progress prints nothing when stderr is not a terminal', (t) => {
  const { stream, writes } = fakeStream(false);
  const p = createProgress(stream);
  p.update('working');
  p.done();
  t.deepEqual(writes, []);
});
