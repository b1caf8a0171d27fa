/**
 * A trace is optional for `hyprof view`: without one the server says there is none (the page then
 * offers no Timeline tab); a damaged one is said once (stderr, and the summary's reason) and the
 * profile is still served.
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { otf2Missing, writeArchive } from './helpers/otf2.js';
import { startView } from './helpers/view-browser.js';
import { hyprof } from './helpers/native.js';
import { profileCopy } from './view-fixture.js';

const missing = otf2Missing();
if (missing) console.log(`trace tests skipped: ${missing}`);
const maybe = missing ? test.skip : test;

test('without a trace the viewer serves the profile and says there is no trace', async (t) => {
  const dir = profileCopy('probes').dir;
  const view = await startView([dir]);
  try {
    t.deepEqual(await (await fetch(`${view.url}api/trace/summary`)).json(), { none: null });
    const range = await fetch(`${view.url}api/trace/range?t0=0&t1=1`);
    t.is(range.status, 404);
    t.regex(((await range.json()) as { error: string }).error, /no trace \(record one with HYPROF_TRACE=1\)/);
    t.is((await fetch(`${view.url}api/summary`)).status, 200);
  } finally {
    await view.stop();
  }
});

maybe('a damaged trace: the profile is still served, without a timeline, the refusal its reason', async (t) => {
  const dir = profileCopy('probes').dir;
  writeArchive('run', undefined, dir);
  writeFileSync(join(dir, 'traces.def'), 'not a definition file\n');
  const view = await startView([dir]);
  try {
    const s = (await (await fetch(`${view.url}api/trace/summary`)).json()) as { none: string };
    t.regex(s.none, /^trace refused: .*traces\.otf2/);
    t.is((await fetch(`${view.url}api/summary`)).status, 200);
  } finally {
    await view.stop();
  }
  // The same refusal from report --trace, for the message's form.
  const r = await hyprof(['report', dir, '--trace']);
  t.regex(r.stderr, /^hyprof: trace refused: .*traces\.otf2.*\n$/);
});
