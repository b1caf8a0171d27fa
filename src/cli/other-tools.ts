/**
 * Commands of the tools hyprof's users know (perf, TAU, pprof), and hyprof's command for each, so
 * `hyprof annotate` answers with the command to use instead of the nearest spelling.
 */
export const OTHER_TOOLS_WORDS: Record<string, string> = {
  // perf
  stat: 'run',
  top: 'report',
  annotate: 'report --functions',
  script: 'export',
  // TAU
  tau_exec: 'run',
  paraprof: 'view',
  pprof: 'report',
  tau_convert: 'export',
  paraprof_diff: 'diff',
  // anything else a user may try
  convert: 'export',
  show: 'report',
  compare: 'diff',
  profile: 'run',
  exec: 'run',
};

/** `hyprof: unknown command 'annotate'; hyprof's command for it is 'report --functions'`, or undefined. */
export function otherToolsWord(command: string): string | undefined {
  const want = Object.hasOwn(OTHER_TOOLS_WORDS, command) ? OTHER_TOOLS_WORDS[command] : undefined;
  return want ? `unknown command '${command}'; hyprof's command for it is '${want}' (hyprof ${want.split(' ')[0]} --help)` : undefined;
}
