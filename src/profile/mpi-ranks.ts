/**
 * The ranks of an MPI run, from what each rank's process recorded (raw INFO attributes at resolve,
 * profile metadata at report): how many ranks the run had, which of them left measurements, which
 * files belong to another run, and which settings differ between ranks. Nothing a user measured may
 * disappear silently: a rank that wrote nothing is named ("rank 3 of 4 wrote no measurements").
 */

/** What one process (or one profile file's thread) says about itself. */
export interface RankRecord {
  node: number;
  attributes: ReadonlyArray<readonly [string, string]>;
  /** For messages: the raw file or the profile file. */
  source: string;
}

/** Settings that must agree between the ranks of one profile (hyprof's names). */
export const RANK_SETTINGS = new Set([
  'HYPROF_CALLPATH',
  'HYPROF_CALLPATH_DEPTH',
  'HYPROF_SAMPLING',
  'HYPROF_PERIOD_US',
  'HYPROF_SAMPLE_SOURCE',
  'HYPROF_UNWIND',
  'HYPROF_UNWIND_DEPTH',
  'HYPROF_MPI',
  'OpenMP Tool',
]);

export interface RankSummary {
  /** Ranks of the run (MPI World Size), when any process knew it. */
  worldSize?: number;
  /** The launcher's job id most files carry (MPI Run Id). */
  runId?: string;
  /** Ranks with measurements of this run, ascending. */
  present: number[];
  /** Ranks of the run with no measurements, ascending. */
  lost: number[];
  /** Nodes whose files carry another run's id (left over from an earlier run in the directory). */
  otherRun: Array<{ node: number; runId: string; source: string }>;
  /** Settings that differ between ranks: setting → value → ranks. */
  mismatched: Array<{ setting: string; values: Array<{ value: string; nodes: number[] }> }>;
}

function attr(r: RankRecord, key: string): string | undefined {
  for (const [k, v] of r.attributes) if (k === key) return v;
  return undefined;
}

/** True when the records come from an MPI run (some process knew its rank from MPI or its launcher). */
export function isMpiRun(records: RankRecord[]): boolean {
  return records.some((r) => attr(r, 'MPI Rank') !== undefined);
}

export function summarizeRanks(records: RankRecord[]): RankSummary {
  const mpi = records.filter((r) => attr(r, 'MPI Rank') !== undefined);
  // The run id most processes carry is this run's; a minority with another id is left over.
  const ids = new Map<string, number>();
  for (const r of mpi) {
    const id = attr(r, 'MPI Run Id');
    if (id) ids.set(id, (ids.get(id) ?? 0) + 1);
  }
  const runId = [...ids].sort((a, b) => b[1] - a[1])[0]?.[0];
  const otherRun: RankSummary['otherRun'] = [];
  const current: RankRecord[] = [];
  const seenOther = new Set<number>();
  for (const r of mpi) {
    const id = attr(r, 'MPI Run Id');
    if (runId && id && id !== runId) {
      if (!seenOther.has(r.node)) otherRun.push({ node: r.node, runId: id, source: r.source });
      seenOther.add(r.node);
    } else current.push(r);
  }
  let worldSize: number | undefined;
  for (const r of current) {
    const w = Number(attr(r, 'MPI World Size'));
    if (Number.isInteger(w) && w > 0) worldSize = Math.max(worldSize ?? 0, w);
  }
  const present = [...new Set(current.map((r) => r.node))].sort((a, b) => a - b);
  const lost: number[] = [];
  if (worldSize !== undefined) {
    const have = new Set(present);
    for (let n = 0; n < worldSize; n++) if (!have.has(n)) lost.push(n);
  }
  const mismatched: RankSummary['mismatched'] = [];
  for (const setting of RANK_SETTINGS) {
    const byValue = new Map<string, Set<number>>();
    for (const r of current) {
      const v = attr(r, setting);
      if (v === undefined) continue;
      let set = byValue.get(v);
      if (!set) byValue.set(v, (set = new Set()));
      set.add(r.node);
    }
    if (byValue.size > 1) {
      mismatched.push({
        setting,
        values: [...byValue].map(([value, nodes]) => ({ value, nodes: [...nodes].sort((a, b) => a - b) })),
      });
    }
  }
  return { worldSize, runId, present, lost, otherRun, mismatched };
}

/** `0-3, 5, 7-8`: a list of ranks in short form. */
export function rankList(nodes: number[]): string {
  const sorted = [...new Set(nodes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** The lines a user must read about the ranks of this run (empty when all is well). */
export function rankNotes(s: RankSummary): string[] {
  const notes: string[] = [];
  if (s.worldSize !== undefined && s.lost.length > 0) {
    const which = s.lost.length === 1 ? `rank ${s.lost[0]}` : `ranks ${rankList(s.lost)}`;
    notes.push(
      `${which} of ${s.worldSize} wrote no measurements (the process crashed, was killed before it could write, or ` +
        `never started): the profile has ${s.present.length} of ${s.worldSize} ranks`,
    );
  }
  for (const o of s.otherRun) {
    notes.push(
      `${o.source}: rank ${o.node}'s files are from another run (MPI Run Id ${o.runId}, not ${s.runId}): ` +
        'left over in this directory, not part of this run',
    );
  }
  for (const m of s.mismatched) {
    const parts = m.values.map((v) => `${v.value} (rank${v.nodes.length > 1 ? 's' : ''} ${rankList(v.nodes)})`);
    notes.push(`ranks were measured with different settings: ${m.setting} is ${parts.join(', ')}; their profiles do not compare`);
  }
  return notes;
}
