/**
 * Misuse of the probe API from a program (a timer stopped that never started, a name that is not a
 * string). Thrown synchronously at the call, with a message that names the timer and what was wrong.
 */
export class HyprofUsageError extends Error {
  constructor(message: string) {
    super(`hyprof: ${message}`);
    this.name = 'HyprofUsageError';
  }
}

/** Describe a value for an error message: its type, and the value itself when short. */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  return typeof v;
}

export function checkName(what: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0)
    throw new HyprofUsageError(`${what} name must be a non-empty string, got ${describe(name)}`);
}

export function checkFunction(what: string, name: string, fn: unknown): asserts fn is (...a: never[]) => unknown {
  if (typeof fn !== 'function')
    throw new HyprofUsageError(`${what} '${name}' needs a function to measure, got ${describe(fn)}`);
}
