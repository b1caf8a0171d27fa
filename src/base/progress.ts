/**
 * A one-line progress reporter for long work (resolving raw files): the line is rewritten in place
 * on a terminal, and nothing is printed when stderr is a file or a pipe (logs of batch jobs stay clean).
 */

export interface Progress {
  /** Show `message` (replaces the previous one). */
  update(message: string): void;
  /** Erase the line; call before printing anything else on stderr. */
  done(): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, done() {} };
  let shown = false;
  let last = 0;
  return {
    update(message: string) {
      // Redrawing faster than the eye reads only costs time.
      const now = Date.now();
      if (shown && now - last < 100) return;
      last = now;
      const width = Math.max(20, (stream.columns || 80) - 1);
      const text = message.length > width ? `${message.slice(0, width - 1)}…` : message;
      stream.write(`\r\x1b[2K${text}`);
      shown = true;
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    },
  };
}
