/**
 * Colours in the terminal: ANSI escapes when the output is a terminal, none when it is a file or a
 * pipe or when NO_COLOR is set (no-color.org); FORCE_COLOR (any value but 0 / false) turns them on
 * anywhere. The decision is taken once by the command from its output stream and the environment.
 */
export interface Paint {
  /** A value that got larger (slower for time). */
  worse(s: string): string;
  /** A value that got smaller. */
  better(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

export function colourWanted(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  return isTTY === true && env.TERM !== 'dumb';
}

const esc = (code: string) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;

export function paint(on: boolean): Paint {
  if (!on) {
    const same = (s: string) => s;
    return { worse: same, better: same, bold: same, dim: same };
  }
  return { worse: esc('31'), better: esc('32'), bold: esc('1'), dim: esc('2') };
}
