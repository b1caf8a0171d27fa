/**
 * bench/view-first-page: `hyprof view DIR` as a user opens it: from the start of the process to the
 * answers the page asks for first (the summary, the main window's first 100 threads with the rank
 * ranges, the thread selector's 1,000 labels), with the server's CPU time and peak resident memory
 * (VmHWM) read from /proc once they are answered. Used by bench/mpi-scale.ts; alone:
 * node dist/bench/view-first-page.js DIR [cli.js].
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cliPath } from '../test/helpers/native.js';

export interface FirstPage {
  /** Seconds from the start to the last of the first answers. */
  wall: number;
  /** User + system CPU seconds of the server by then. */
  cpu: number;
  rssMiB: number;
}

export async function viewFirstPage(dir: string, cli = cliPath): Promise<FirstPage> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [cli, 'view', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) ok(m[1]);
      });
      child.once('exit', (code) => fail(new Error(`hyprof view exited (${code}): ${err.slice(-2000)}`)));
    });
    for (const path of ['api/summary', 'api/threads?limit=100', 'api/threads?limit=1000&labels=1']) {
      const r = await fetch(url + path);
      if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rssMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
    // utime and stime, fields 14 and 15 of /proc/PID/stat (after the command's closing parenthesis)
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const cpu = (Number(stat[11]) + Number(stat[12])) / 100;
    return { wall, cpu, rssMiB };
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const m = await viewFirstPage(process.argv[2], process.argv[3]);
  console.log(`view first page: ${m.wall.toFixed(1)} s wall, ${m.cpu.toFixed(1)} s CPU, ${m.rssMiB.toFixed(0)} MiB peak RSS`);
}
