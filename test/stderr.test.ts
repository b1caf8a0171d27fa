/**
 * hyprof writes its messages to the stderr the program started with (native/core/stderr.c): a program
 * that closed descriptor 2 and opened a data file there keeps its data file to itself — the warnings
 * of the parent and of a forked child, and the at-exit resolver's lines, go to the original stderr.
 * A program that also closed every other descriptor (hyprof's copy of stderr among them) and put a
 * file where that copy was gets nothing of hyprof's in either file.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, run, tmpDir } from './helpers/native.js';

const exe = compileC('stderr_swap', ['stderr_swap.c']);

test("a program that put a data file on descriptor 2: hyprof's warnings and the resolver's lines stay out of it", async (t) => {
  const dir = tmpDir('stderr-swap');
  const data = join(dir, 'data.txt');
  const r = await run(exe, [data], { env: { HYPROF_DIR: join(dir, 'profile') } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'child exited 0\n');
  t.is(readFileSync(data, 'utf8'), 'program data\n', 'the data file holds the program data only');
  const lines = r.stderr.trim().split('\n');
  t.true(lines.includes("hyprof: stop of 'not running', which is not running on thread 0 (innermost running: 'outer'); ignored"), r.stderr);
  t.true(lines.includes("hyprof: stop of 'not running in the child' while no timer is running on thread 0; ignored"), r.stderr);
  t.is(lines.filter((l) => /^hyprof: profile of 1 thread written to /.test(l)).length, 2, r.stderr);
});

test("a program that closed every descriptor and put a file where hyprof's copy of stderr was: nothing of hyprof's goes there", async (t) => {
  const dir = tmpDir('stderr-closeall');
  const data = join(dir, 'data.txt');
  const second = join(dir, 'second.txt');
  const r = await run(exe, [data, second], { env: { HYPROF_DIR: join(dir, 'profile') } });
  t.is(r.code, 0, r.stderr);
  t.is(readFileSync(data, 'utf8'), 'program data\n');
  t.is(readFileSync(second, 'utf8'), 'second data\n');
  t.is(r.stderr, '', 'no stderr of the program is left to write to');
});
