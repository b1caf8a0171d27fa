/**
 * `hyprof view` from the command line: the URL it prints serves the profile, and each error a user
 * can cause (no profiles, a file TAU's reader would reject, a port in use, a non-loopback host, a
 * bad port) ends with a clear message and a non-zero status.
 */
import test from 'ava';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { cliPath, hyprof, run, tmpDir } from './helpers/native.js';
import { profileCopy } from './view-fixture.js';

/** Run `hyprof view` until it prints its URL (or exits); returns what it printed. */
function viewUntilUrl(args: string[], env: Record<string, string> = {}): Promise<{ url?: string; stdout: string; stderr: string; code: number | null }> {
  return new Promise((ok) => {
    let stdout = '';
    let stderr = '';
    let url: string | undefined;
    void hyprof(['view', ...args], {
      env,
      timeoutMs: 60_000,
      onSpawn: (c) => {
        c.stdout!.on('data', (d: Buffer) => {
          stdout += d.toString();
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(stdout);
          if (m && !url) {
            url = m[1];
            // Give --open a moment to report, then stop the server as a user would (Ctrl-C).
            setTimeout(() => c.kill('SIGINT'), 500);
          }
        });
        c.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      },
    }).then((r) => ok({ url, stdout, stderr, code: r.code }));
  });
}

test('view prints the URL it serves and stops cleanly on SIGINT', async (t) => {
  const fx = profileCopy('hybrid_unwind');
  let summary: string | undefined;
  const r = await new Promise<{ code: number | null; stdout: string }>((ok) => {
    let out = '';
    void hyprof(['view', fx.dir], {
      onSpawn: (c) => {
        c.stdout!.on('data', async (d: Buffer) => {
          out += d.toString();
          const m = /^hyprof: viewing (.*) at (http:\/\/127\.0\.0\.1:(\d+)\/)\n$/.exec(out);
          if (m) {
            t.is(m[1], fx.dir);
            t.not(m[3], '0');
            summary = await (await fetch(`${m[2]}api/summary`)).text();
            c.kill('SIGINT');
          }
        });
      },
    }).then((res) => ok({ code: res.code, stdout: out }));
  });
  t.is(r.code, 0);
  t.is(JSON.parse(summary!).dir, fx.dir);
});

test('view --port uses that port; a port in use is refused with a clear message', async (t) => {
  const blocker = createServer();
  await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
  const port = (blocker.address() as { port: number }).port;
  try {
    const fx = profileCopy('probes');
    const r = await hyprof(['view', fx.dir, '--port', String(port)]);
    t.is(r.code, 1);
    t.is(r.stderr, `hyprof: port ${port} on 127.0.0.1 is in use; choose another with --port (0 picks a free one)\n`);
    t.is(r.stdout, '');
  } finally {
    blocker.close();
  }
});

test('view of a directory without profiles says so', async (t) => {
  const empty = tmpDir('view-empty');
  const r = await hyprof(['view', empty]);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${empty}: no TAU profile files (profile.<node>.<context>.<thread>) found\n`);
  const missing = join(empty, 'nope');
  const r2 = await hyprof(['view', missing]);
  t.is(r2.code, 2);
  t.is(r2.stderr, `hyprof: ${missing}: no such directory\n`);
});

test('view of a file TAU\'s reader rejects names the file and the line', async (t) => {
  const dir = tmpDir('view-bad');
  const good = readFileSync(join(profileCopy('probes').dir, 'profile.0.0.0'), 'utf8').split('\n');
  // One event line fewer than the count says: TAU's reader rejects that too.
  good.splice(2, 1);
  writeFileSync(join(dir, 'profile.0.0.0'), good.join('\n'));
  const r = await hyprof(['view', dir]);
  t.is(r.code, 2);
  t.regex(r.stderr, new RegExp(`^hyprof: ${dir}/profile\\.0\\.0\\.0:\\d+: not a TAU profile: .*\\n$`));
  t.false(r.stderr.includes('    at '));
});

test('view refuses a non-loopback host, a bad port and a bad --ranges-above', async (t) => {
  const fx = profileCopy('probes');
  const r = await hyprof(['view', fx.dir, '--host', '0.0.0.0']);
  t.is(r.code, 2);
  t.is(r.stderr, 'hyprof: --host 0.0.0.0: the viewer listens on a loopback address only (127.0.0.1, ::1, localhost)\n');
  const p = await hyprof(['view', fx.dir, '--port', 'eighty']);
  t.is(p.code, 2);
  t.regex(p.stderr, /--port must be a whole number from 0 to 65535 \(0 = a free port\), not 'eighty'/);
  const q = await hyprof(['view', fx.dir, '--ranges-above', 'abc']);
  t.is(q.code, 2);
  t.regex(q.stderr, /--ranges-above must be a whole number of threads, not 'abc'/);
  t.false(q.stderr.includes('    at '));
});

test('view --open launches xdg-open with the URL, or says it could not', async (t) => {
  const fx = profileCopy('probes');
  const bin = tmpDir('view-bin');
  const log = join(bin, 'opened.txt');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${log}\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const withIt = await viewUntilUrl([fx.dir, '--open'], { PATH: `${bin}:/usr/bin:/bin` });
  t.truthy(withIt.url);
  t.is(readFileSync(log, 'utf8').trim(), withIt.url!);
  t.is(withIt.code, 0);
  const noBrowser = tmpDir('view-nobin');
  mkdirSync(join(noBrowser, 'empty'));
  const without = await viewUntilUrl([fx.dir, '--open'], { PATH: join(noBrowser, 'empty') });
  t.truthy(without.url);
  t.is(without.stderr, `hyprof: could not open a browser (xdg-open not found); open ${without.url} yourself\n`);
});

test('view --help lists the options', async (t) => {
  const r = await run(process.execPath, [cliPath, 'view', '--help']);
  t.is(r.code, 0);
  for (const o of ['--port', '--host', '--open']) t.true(r.stdout.includes(o));
});
