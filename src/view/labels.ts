/**
 * What the viewer writes on a frame: the function name as perf, pprof and speedscope show it (the
 * exporters' frame, export-common.ts sampledCode), with file and line beside it for the tooltip
 * and the source panel, instead of TAU's node name (`[UNWIND] app.c.6 [@] main [{app.c} {15}]`),
 * which stays in `name` one click away. hyprof's own contexts (timers, phases, parameter values)
 * carry a role so the page draws them apart from sampled code.
 */
import { sampledCode } from '../export/export-common.js';
import type { TreeNode } from '../profile/event-tree.js';

/**
 * `timer`, `phase`, `param` (a parameter specialisation): hyprof's contexts. `samples`: the
 * `[CONTEXT] t` node directly under its timer t (the flame graph leaves it out, as every export
 * does). `code`: a sampled function.
 */
export type FrameRole = 'timer' | 'phase' | 'param' | 'samples' | 'code';

export interface FrameLabel {
  label: string;
  role: FrameRole;
  file?: string;
  line?: number;
}

const PARAM = /\[ <[^>]*> = <[^>]*> \]\s*$/;
const SCRIPT = /\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/;

function baseName(file: string): string {
  return file.slice(file.lastIndexOf('/') + 1);
}

/** The label of a node of the event tree (name, kind, group and parent are all it needs). */
export function frameLabel(n: Pick<TreeNode, 'name' | 'kind' | 'group'> & { parent: Pick<TreeNode, 'name'> | null }): FrameLabel {
  if (n.kind === 'timer') {
    const role: FrameRole = PARAM.test(n.name) ? 'param' : n.group.split('|').some((g) => g.trim() === 'TAU_PHASE') ? 'phase' : 'timer';
    return { label: n.name, role };
  }
  if (n.kind === 'context') {
    const own = n.name.slice('[CONTEXT]'.length).trim();
    return { label: own, role: n.parent && n.parent.name === own ? 'samples' : 'param' };
  }
  const code = sampledCode(n.name);
  if (!code) return { label: n.name, role: 'code' };
  // JavaScript: speedscope's and Chrome's `name file:line`, since many functions share a name.
  const label = code.file !== undefined && SCRIPT.test(code.file) ? `${code.name} ${baseName(code.file)}:${code.line}` : code.name;
  return { label, role: 'code', ...(code.file !== undefined ? { file: code.file, line: code.line } : {}) };
}
