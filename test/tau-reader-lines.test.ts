/**
 * The line-by-line reader of profile files (readThreadLines, what `hyprof report` reads with: a
 * file read a chunk at a time, never whole) against the reader of a file's whole text
 * (parseThreadProfile): the same lines, the same thread, the same refusal of a bad file, whatever the
 * chunk size, for TAU's own reference profiles and for files cut, joined and garbled in the ways a
 * chunk boundary could matter (a line longer than the chunk, a multi-byte character across it, CR LF
 * endings, no final newline, bytes that are not UTF-8).
 */
import test from 'ava';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TauThreadProfile } from '../src/profile/tau-model.js';
import { ownString, parseThreadProfile, readThreadFile, readThreadLines, type ThreadHead } from '../src/profile/tau-reader.js';
import { tauReferenceDir, tmpDir } from './helpers/native.js';

const IDS = { node: 0, context: 0, thread: 0 };

/** The thread, or the message of the refusal, from the whole text. */
function whole(file: string): string {
  try {
    return JSON.stringify(parseThreadProfile(file, readFileSync(file, 'utf8'), IDS));
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}

/** The same from the lines read `chunk` bytes at a time. */
function byLines(file: string, chunk: number): string {
  let head: ThreadHead | undefined;
  const events: TauThreadProfile['events'] = [];
  const userEvents: TauThreadProfile['userEvents'] = [];
  let ended = false;
  try {
    readThreadLines(
      { file, ...IDS },
      {
        begin: (h) => (head = h),
        event: (name, calls, subrs, excl, incl, group) => events.push({ name, calls, subrs, excl, incl, group }),
        userEvent: (u) => userEvents.push(u),
        end: () => (ended = true),
      },
      chunk,
    );
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
  if (!head || !ended) return 'no begin or no end';
  const { node, context, thread, metric, metadata } = head;
  return JSON.stringify({ node, context, thread, metric, events, userEvents, metadata });
}

const CHUNKS = [1, 3, 64, 1 << 20];

/** Every reference profile file, and the variants of each that stress the chunk boundaries. */
function cases(): Array<{ what: string; bytes: Buffer }> {
  const out: Array<{ what: string; bytes: Buffer }> = [];
  for (const v of readdirSync(tauReferenceDir).sort()) {
    const f = join(tauReferenceDir, v, 'profile.0.0.0');
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    out.push({ what: v, bytes: Buffer.from(text) });
    out.push({ what: `${v}, CR LF endings`, bytes: Buffer.from(text.replace(/\n/g, '\r\n')) });
    out.push({ what: `${v}, no final newline`, bytes: Buffer.from(text.replace(/\n+$/, '')) });
    out.push({ what: `${v}, cut in the middle`, bytes: Buffer.from(text).subarray(0, text.length >> 1) });
    out.push({ what: `${v}, an event line dropped`, bytes: Buffer.from(text.split('\n').filter((_, i) => i !== 3).join('\n')) });
    // Names of multi-byte characters and a name longer than every chunk.
    const named = text.replace(/^"([^"]*)"/m, `"ä€😀 ${'x'.repeat(5000)} $1"`).replace(/^"main/m, '"mäin ☃');
    out.push({ what: `${v}, long and multi-byte names`, bytes: Buffer.from(named) });
    // Bytes that are not UTF-8 inside a name (decoded as the whole text decodes them).
    const at = text.indexOf('\n"') + 3;
    out.push({ what: `${v}, invalid UTF-8 in a name`, bytes: Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0xff, 0xe2, 0x82]), Buffer.from(text.slice(at))]) });
  }
  return out;
}

test('the file read in chunks gives the same thread, or the same refusal, as its whole text', (t) => {
  const dir = tmpDir('reader-lines');
  const all = cases();
  t.true(all.length >= 7 * 10, `${all.length} cases: the reference profiles are there`);
  let refused = 0;
  for (const [i, c] of all.entries()) {
    const file = join(dir, `profile.${i}.0.0`);
    writeFileSync(file, c.bytes);
    const expected = whole(file);
    if (expected.startsWith('refused')) refused++;
    for (const chunk of CHUNKS) t.is(byLines(file, chunk), expected, `${c.what}, read ${chunk} bytes at a time`);
  }
  t.true(refused > 0 && refused < all.length, 'both outcomes are compared');
});

test('a file that cannot be read is refused by name, as the whole-text reader refuses it', (t) => {
  const dir = tmpDir('reader-lines-bad');
  const missing = join(dir, 'profile.0.0.0');
  const refusal = (file: string): string => {
    try {
      readThreadFile({ file, ...IDS });
      return 'read';
    } catch (e) {
      return `refused: ${(e as Error).message}`;
    }
  };
  t.regex(byLines(missing, 64), /^refused: .*profile\.0\.0\.0: cannot read the profile file: no such file or directory/);
  t.is(byLines(missing, 64), refusal(missing));
  t.is(byLines(dir, 64), `refused: ${dir}: a directory where a profile file should be`);
  t.is(byLines(dir, 64), refusal(dir));
});

test('a kept name is the same text: short, long, multi-byte, and with a lone surrogate (a merged file\'s XML may hold one)', (t) => {
  for (const s of ['', 'main', 'Iteration 123456 => work', `ä€😀 ${'x'.repeat(40)}`, `${'y'.repeat(20)}\ud800`, `\udc00${'z'.repeat(20)}`]) {
    t.is(ownString(s), s);
  }
});
