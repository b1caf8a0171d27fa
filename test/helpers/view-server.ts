/**
 * `hyprof view` started as a user starts it, for tests that talk to its server (HTTP requests, or a
 * browser: helpers/view-browser.ts): resolves once it prints the URL it serves, with the process, to
 * stop it, and what it printed.
 */
import type { ChildProcess } from 'node:child_process';
import { hyprof } from './native.js';

export interface ViewServerProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  /** Stop it as a user would (Ctrl-C); resolves with its exit status. */
  stop: () => Promise<number | null>;
}

/** Start `hyprof view ARGS`; rejects with its stderr when it exits before serving. */
export function startView(args: string[]): Promise<ViewServerProcess> {
  return new Promise((ok, fail) => {
    let out = '';
    let child: ChildProcess;
    let served = false;
    const done = hyprof(['view', ...args], {
      onSpawn: (c) => {
        child = c;
        c.stdout!.on('data', (d: Buffer | string) => {
          out += d.toString();
          const m = /hyprof: viewing .* at (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out);
          if (m && !served) {
            served = true;
            ok({
              url: m[1],
              child,
              stdout: () => out,
              stop: () => {
                child.kill('SIGINT');
                return done.then((r) => r.code);
              },
            });
          }
        });
      },
    });
    void done.then((r) => {
      if (!served) fail(new Error(`hyprof view exited (${r.code}): ${r.stderr}`));
    });
  });
}
