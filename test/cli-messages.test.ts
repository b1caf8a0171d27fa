/** The one-line messages of `run` and `resolve`: unit tests. */
import test from 'ava';
import { filePattern } from '../src/run/resolve-step.js';
import { findProgram } from '../src/run/run-measured.js';
import { describeOutput, resolveNotes, showDir, signalNumber } from '../src/run/run-messages.js';

test('written files as one glob', (t) => {
  t.is(filePattern(['/p/profile.0.0.0', '/p/profile.0.0.1']), 'profile.0.0.*');
  t.is(filePattern(['/p/profile.1.0.0', '/p/profile.0.0.0', '/p/profile.10.0.0']), 'profile.{0,1,10}.0.*');
  t.is(filePattern(['/p/MULTI__TIME/profile.0.0.0', '/p/MULTI__CPU_TIME/profile.0.0.0']), 'profile.0.0.*');
});

test('directories as the user would type them', (t) => {
  t.is(showDir(process.cwd()), './');
  t.is(showDir(`${process.cwd()}/prof`), './prof/');
  t.is(showDir('/elsewhere/prof'), '/elsewhere/prof/');
  t.is(
    describeOutput({ threads: 3, pattern: 'profile.0.0.*', drops: {}, warnings: [], replaced: [] }, process.cwd()),
    'profile of 3 threads written to ./ (profile.0.0.*)',
  );
  t.is(
    describeOutput({ threads: 1, pattern: 'profile.0.0.*', drops: {}, warnings: [], replaced: [] }, 'prof'),
    'profile of 1 thread written to ./prof/ (profile.0.0.*)',
  );
});

test('images replaced by exec are named, the first three by their program', (t) => {
  const image = (context: number) => ({ node: 0, context, executable: `/x/app${context}` });
  t.is(
    describeOutput({ threads: 2, pattern: 'profile.0.{0,1}.*', drops: {}, warnings: [], replaced: [image(1)] }, 'prof'),
    'profile of 2 threads written to ./prof/ (profile.0.{0,1}.*); profile.0.1.* is /x/app1 before it replaced itself by exec',
  );
  t.is(
    describeOutput({ threads: 5, pattern: 'profile.0.{0..4}.*', drops: {}, warnings: [], replaced: [1, 2, 3, 4].map(image) }, 'prof'),
    'profile of 5 threads written to ./prof/ (profile.0.{0..4}.*); profile.0.1.* is /x/app1, profile.0.2.* is /x/app2, ' +
      'profile.0.3.* is /x/app3 before each replaced itself by exec (and 1 more image)',
  );
});

test('lost measurements and warnings are said, zero counts are not', (t) => {
  t.deepEqual(resolveNotes({ threads: 1, pattern: '', drops: { in_tool: 0 }, warnings: [], replaced: [] }), []);
  t.deepEqual(
    resolveNotes({ threads: 1, pattern: '', drops: { in_tool: 476, table_full: 1, after_stop: 0, unwind_failed: 5 }, samples: 158000, warnings: ['no symbols in /x/app'], replaced: [] }),
    [
      'hyprof: warning: no symbols in /x/app',
      // Shares are of every sample taken: the 158,000 kept and the 477 not kept.
      "hyprof: 476 samples landed inside hyprof's own code (0.3 % of samples; not charged to your program)",
      'hyprof: 1 sample lost: the sample table was full (<0.1 % of samples; your program is under-counted there; raise HYPROF_SAMPLE_TABLE)',
      'hyprof: 5 samples kept with a partial call stack (unwinding failed) (<0.1 % of samples; counted, callers missing)',
    ],
  );
  // Probe reasons are no share of samples; a reason hyprof does not know is said by its name.
  t.deepEqual(resolveNotes({ threads: 1, pattern: '', drops: { timers_nested_too_deep: 45, new_reason: 2 }, warnings: [], replaced: [] }), [
    'hyprof: 45 timer entries not recorded: timers nested too deep (those timers are missing from the profile)',
    'hyprof: 2 measurements not recorded (new reason)',
  ]);
});

test('signal numbers for the 128+n status', (t) => {
  t.is(signalNumber('SIGKILL'), 9);
  t.is(signalNumber('SIGTERM'), 15);
  t.is(signalNumber('SIGINT'), 2);
});

test('the program is found on PATH as a shell finds it', (t) => {
  t.regex(findProgram('sh') ?? '', /\/sh$/);
  t.is(findProgram('/nonexistent/prog'), null);
  t.is(findProgram('hyprof-no-such-command-xyz'), null);
  t.is(findProgram('sh', '/nonexistent-dir'), null);
});
