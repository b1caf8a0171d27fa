/**
 * Signals while hyprof starts. Until a command sets up its own handling, SIGINT, SIGTERM and SIGHUP
 * would end hyprof by their default action, silently: a batch system's time limit or a `timeout`
 * that arrives while a loaded node is still loading hyprof's modules left no word at all. From the
 * entry point on they end it with one line instead; a command takes over (endEarlySignals) when it
 * handles them itself or wants their default back.
 */
const EARLY = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

let installed: Array<[NodeJS.Signals, () => void]> = [];

export function startEarlySignals(): void {
  if (installed.length > 0) return;
  installed = (Object.keys(EARLY) as Array<keyof typeof EARLY>).map((s) => [
    s,
    () => {
      process.stderr.write(`hyprof: stopped by ${s} while starting: nothing was run or written\n`);
      process.exit(128 + EARLY[s]);
    },
  ]);
  for (const [s, h] of installed) process.on(s, h);
}

export function endEarlySignals(): void {
  for (const [s, h] of installed) process.off(s, h);
  installed = [];
}
