/**
 * A thread's profile file read line by line, its events handed out one at a time: an export of a
 * thread of millions of events holds neither the file's text (249 MB at 10^6 phases) nor an object
 * per event. The same rules and messages as tau-reader.ts parseThreadProfile, which reads the file
 * whole (test/export-tree.test.ts checks that both reject the same files the same way).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { systemErrorText, UserError } from '../base/errors.js';
import type { TauEvent } from './tau-model.js';

const NUM = String.raw`(-?[0-9.]+(?:[eE][-+]?\d+)?|nan|-?inf)`;
const EVENT_RE = new RegExp(String.raw`^"(.*)" ${NUM} ${NUM} ${NUM} ${NUM} ${NUM}(?: GROUP="(.*)")?\s*$`);
const USER_RE = new RegExp(String.raw`^"(.*)" ${NUM} ${NUM} ${NUM} ${NUM} ${NUM}\s*$`);
const CHUNK = 1 << 20;

function fail(file: string, line: number, what: string): never {
  throw new UserError(`${file}:${line}: not a TAU profile: ${what}`);
}

function cannotRead(file: string, e: unknown): UserError {
  if ((e as NodeJS.ErrnoException).code === 'EISDIR') return new UserError(`${file}: a directory where a profile file should be`);
  return new UserError(`${file}: cannot read the profile file: ${systemErrorText(e) ?? (e as Error).message}`);
}

/** The lines of a file, each decoded on its own (so no line keeps a larger text alive). */
function* linesOf(file: string): Generator<string> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw cannotRead(file, e);
  }
  try {
    const chunk = Buffer.alloc(CHUNK);
    let rest: Buffer = Buffer.alloc(0);
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, chunk, 0, CHUNK, null);
      } catch (e) {
        throw cannotRead(file, e);
      }
      if (got === 0) break;
      const buf = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      let at = 0;
      for (let nl = buf.indexOf(10, at); nl >= 0; nl = buf.indexOf(10, at)) {
        yield buf.toString('utf8', at, nl);
        at = nl + 1;
      }
      // The unfinished line is copied: `chunk` is read into again.
      rest = Buffer.from(buf.subarray(at));
    }
    // A last line without a newline is a line; the text's final newline ends the last one.
    if (rest.length > 0) yield rest.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The events of a profile file, in file order, checked as tau-reader.ts checks them: the header,
 * every event line, the aggregates and user events after them (a file that fails is never half
 * exported without a message: the error is thrown when its line is reached).
 */
export function* threadEvents(file: string): Generator<TauEvent> {
  const lines = linesOf(file);
  // The number of the line last asked for, whether or not the file has it (as tau-reader.ts counts).
  let lineNo = 0;
  const next = (): string | undefined => {
    lineNo++;
    const r = lines.next();
    return r.done ? undefined : r.value;
  };
  try {
    const first = /^(\d+) templated_functions(?:_MULTI_(.*))?\s*$/.exec(next() ?? '');
    if (!first) fail(file, 1, 'expected "<N> templated_functions_MULTI_<metric>"');
    const header = next() ?? '';
    if (!header.startsWith('# Name Calls Subrs Excl Incl ProfileCalls')) {
      fail(file, 2, 'expected the "# Name Calls Subrs Excl Incl ProfileCalls" header line');
    }
    const n = Number(first[1]);
    const groups = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      const line = next();
      if (line === undefined) fail(file, i + 3, `expected ${n} event lines, found ${i}`);
      const m = EVENT_RE.exec(line);
      if (!m) fail(file, i + 3, 'expected an event line "<name>" <calls> <subrs> <excl> <incl> 0 GROUP="..."');
      const values = [m[2], m[3], m[4], m[5]].map(Number);
      if (values.some((v) => !(v >= 0))) fail(file, i + 3, 'negative or invalid value');
      const g = m[7] ?? '';
      let group = groups.get(g);
      if (group === undefined) groups.set(g, (group = g.length < 13 ? g : Buffer.from(g).toString()));
      yield { name: m[1], calls: values[0], subrs: values[1], excl: values[2], incl: values[3], group };
    }
    const agg = /^(\d+) aggregates\s*$/.exec(next() ?? '');
    if (!agg) fail(file, n + 3, `expected "0 aggregates" after ${n} event lines`);
    for (let k = Number(agg[1]); k > 0; k--) next();
    const count = next();
    if (count === undefined) return;
    const ue = /^(\d+) userevents\s*$/.exec(count);
    if (!ue) fail(file, lineNo, 'expected "<k> userevents" or the end of the file');
    next(); // "# eventname numevents max min mean sumsqr"
    for (let k = Number(ue[1]); k > 0; k--) {
      const line = next();
      if (!USER_RE.test(line ?? '')) fail(file, lineNo, 'expected a user event line "<name>" <count> <max> <min> <mean> <sumsqr>');
    }
    if (next() !== undefined) fail(file, lineNo, 'unexpected text after the user events');
  } finally {
    lines.return(undefined);
  }
}
