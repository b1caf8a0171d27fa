/**
 * Names that would break a TAU profile are rewritten before they are written (docs/assembly.md,
 * "Names"):
 * - `"` becomes `'` and line breaks a space (TAU's readers split on both);
 * - `=>` becomes `->`: TAU's readers split event paths there, so a name holding it would read as a
 *   path whose parts have no entries;
 * - user event names keep `=>` (a context event's path, userEventName);
 * - a timer's or phase's own name has its runs of blanks collapsed and is trimmed, as TAU's readers
 *   show it (two names that differ only there would be one name to them), and an empty or blank name
 *   becomes `(unnamed)` (TAU's reader calls an empty name a corrupt file).
 * Names hyprof builds in TAU's fixed forms (parameter specialisations `…  [ <p> = <v> ]  `, OpenMP
 * constructs) keep their spacing.
 */

export const UNNAMED = '(unnamed)';

/** Any one event name (never a whole path): no quote, line break or path separator. */
export function safeName(name: string): string {
  return name.replace(/"/g, "'").replace(/[\r\n]+/g, ' ').replace(/=>/g, '->');
}

/** A name a program gave a timer or phase. */
export function userName(name: string): string {
  const s = safeName(name).replace(/\s+/g, ' ').trim();
  return s === '' ? UNNAMED : s;
}

/**
 * An atomic user event's name. Kept with its `=>`: TAU names a context event
 * `<name> : <a> => <b>` (the path of the timers it was triggered under), and its readers take user
 * event names whole, never as paths.
 */
export function userEventName(name: string): string {
  const s = name.replace(/"/g, "'").replace(/\s+/g, ' ').trim();
  return s === '' ? UNNAMED : s;
}

/** A parameter specialisation `<timer><suffix>`: the timer's part as userName, the suffix kept. */
export function paramName(name: string, timer: string): string {
  const suffix = name.startsWith(timer) ? name.slice(timer.length) : name;
  return `${userName(timer)}${safeName(suffix)}`;
}
