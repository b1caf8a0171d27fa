/**
 * The processes of a run are found by the mark they inherit (HYPROF_RUN_PARENT), read from their
 * environment; only processes that can be the run's have their environment read at all: this
 * user's, started no earlier than the run's parent.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { mayBeOfRun, runSurvivors, startTicks } from '../src/run/run-survivors.js';

test("a child carrying the run's mark is found; processes started before the run are never read", async (t) => {
  const child = spawn('sleep', ['30'], { env: { ...process.env, HYPROF_RUN_PARENT: String(process.pid) }, stdio: 'ignore' });
  try {
    await new Promise((ok) => child.once('spawn', ok));
    // the exec may lag the spawn: the mark is in its environment once sleep runs
    let found = runSurvivors(process.pid);
    for (let i = 0; i < 100 && !found.some((s) => s.pid === child.pid); i++) {
      await new Promise((ok) => setTimeout(ok, 20));
      found = runSurvivors(process.pid);
    }
    t.true(found.some((s) => s.pid === child.pid && s.command === 'sleep'), JSON.stringify(found));
    const uid = process.getuid!();
    const since = startTicks(process.pid);
    t.not(since, null);
    t.true(mayBeOfRun(child.pid!, since, uid));
    // init started before this process: its environment is not one to read
    t.false(mayBeOfRun(1, since, uid));
    // another user's process is not the run's
    t.false(mayBeOfRun(child.pid!, since, uid + 1));
  } finally {
    child.kill('SIGKILL');
  }
});
