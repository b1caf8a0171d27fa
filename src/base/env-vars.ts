/**
 * Environment variables with a rule for combining each with the user's value (set, append to a
 * `:` list, prepend, keep the user's value), applied to an environment in Node or written as POSIX
 * shell lines, so that `hyprof run` and the shell launcher bin/hyprof-exec combine them the same way
 * (run/measured-env.ts holds the list).
 */
export type EnvVar =
  /** set to the value */
  | { name: string; how: 'set'; value: string; why: string }
  /** the value after the user's, separated by `:` (LD_PRELOAD: the user's libraries stay first) */
  | { name: string; how: 'append'; value: string; why: string }
  /** the value before the user's, separated by `:` (LD_LIBRARY_PATH: ours is found first) */
  | { name: string; how: 'prepend'; value: string; why: string }
  /** set only when none of `unless` is set (the user's choice wins) */
  | { name: string; how: 'default'; value: string; unless: string[]; why: string };

/** The environment `base` with `vars` applied by their rules. */
export function applyVars(base: NodeJS.ProcessEnv, vars: EnvVar[]): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const v of vars) {
    const old = env[v.name];
    if (v.how === 'set') env[v.name] = v.value;
    else if (v.how === 'append') env[v.name] = old ? `${old}:${v.value}` : v.value;
    else if (v.how === 'prepend') env[v.name] = old ? `${v.value}:${old}` : v.value;
    else if (v.unless.every((u) => env[u] === undefined)) env[v.name] = v.value;
  }
  return env;
}

/** A value in single quotes for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * `vars` as POSIX shell lines. Values are quoted literally, except those marked `expr` (a shell
 * expression, e.g. the raw directory under the user's HYPROF_DIR), which are put in double quotes.
 */
export function shellLines(vars: EnvVar[], expr: Set<string> = new Set()): string[] {
  const lines: string[] = [];
  for (const v of vars) {
    const val = expr.has(v.name) ? `"${v.value}"` : shellQuote(v.value);
    lines.push(`# ${v.why}`);
    if (v.how === 'set') lines.push(`export ${v.name}=${val}`);
    else if (v.how === 'append') lines.push(`export ${v.name}="\${${v.name}:+\$${v.name}:}"${val}`);
    else if (v.how === 'prepend') lines.push(`export ${v.name}=${val}"\${${v.name}:+:\$${v.name}}"`);
    else lines.push(`[ -n "${v.unless.map((u) => `\${${u}+x}`).join('')}" ] || export ${v.name}=${val}`);
  }
  return lines;
}

