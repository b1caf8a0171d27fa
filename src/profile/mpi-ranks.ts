/**
 * The ranks of an MPI run, from what each rank's process recorded (raw INFO attributes at resolve,
 * profile metadata at report): how many ranks the run had, which of them left measurements, which
 * files belong to another run, and which settings differ between ranks. Nothing a user measured may
 * disappear silently: a rank that wrote nothing is named ("rank 3 of 4 wrote no measurements").
 */
import { RankSet } from './rank-set.js';
import { ownString } from './tau-reader.js';

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
  /** How many ranks have measurements of this run. */
  present: number;
  /** Ranks of the run with no measurements, ascending. */
  lost: number[];
  /** Per other run id, the ranks whose files carry it (left over from an earlier run in the directory). */
  otherRun: Array<{ runId: string; ranks: RankSet; source: string }>;
  /** Settings that differ between ranks: setting → value → ranks. */
  mismatched: Array<{ setting: string; values: Array<{ value: string; ranks: RankSet }> }>;
}

function attr(r: RankRecord, key: string): string | undefined {
  for (const [k, v] of r.attributes) if (k === key) return v;
  return undefined;
}

/** What the records of one run id say: kept per run id, since which id is the run's own is known at the end. */
interface RunGroup {
  ranks: RankSet;
  /** The first file that carried the id (messages name it). */
  source: string;
  worldSize?: number;
  /** setting → value → ranks. */
  settings: Map<string, Map<string, RankSet>>;
}

/**
 * The ranks' records taken one at a time, so that a job of any size is summarised in memory that
 * grows with its run ids, settings and gaps between ranks, not with its ranks (each set of ranks is
 * a few ranges).
 */
export class RanksAcc {
  /** By run id ('' for records without one, which count as the run's own). */
  private readonly groups = new Map<string, RunGroup>();
  private mpi = false;

  /** True once a record of an MPI run was added (a process knew its rank). */
  get isMpi(): boolean {
    return this.mpi;
  }

  add(r: RankRecord): void {
    if (attr(r, 'MPI Rank') === undefined) return;
    this.mpi = true;
    const id = attr(r, 'MPI Run Id') || '';
    let g = this.groups.get(id);
    // Own copies: a value read from a file may be a slice that keeps the whole file's text alive.
    if (!g) this.groups.set(ownString(id), (g = { ranks: new RankSet(), source: ownString(r.source), settings: new Map() }));
    g.ranks.add(r.node);
    const w = Number(attr(r, 'MPI World Size'));
    if (Number.isInteger(w) && w > 0) g.worldSize = Math.max(g.worldSize ?? 0, w);
    for (const setting of RANK_SETTINGS) {
      const v = attr(r, setting);
      if (v === undefined) continue;
      let byValue = g.settings.get(setting);
      if (!byValue) g.settings.set(setting, (byValue = new Map()));
      let set = byValue.get(v);
      if (!set) byValue.set(ownString(v), (set = new RankSet()));
      set.add(r.node);
    }
  }

  summary(): RankSummary {
    // The run id most processes carry is this run's; a minority with another id is left over.
    let runId: string | undefined;
    for (const [id, g] of this.groups) if (id && (runId === undefined || g.ranks.size > this.groups.get(runId)!.ranks.size)) runId = id;
    const own = [this.groups.get(runId ?? ''), runId ? this.groups.get('') : undefined].filter((g): g is RunGroup => g !== undefined);
    const otherRun = [...this.groups]
      .filter(([id]) => id && id !== runId)
      .map(([id, g]) => ({ runId: id, ranks: g.ranks, source: g.source }));
    const present = new RankSet();
    let worldSize: number | undefined;
    const settings = new Map<string, Map<string, RankSet>>();
    for (const g of own) {
      present.addAll(g.ranks);
      if (g.worldSize !== undefined) worldSize = Math.max(worldSize ?? 0, g.worldSize);
      for (const [setting, byValue] of g.settings) {
        let into = settings.get(setting);
        if (!into) settings.set(setting, (into = new Map()));
        for (const [v, ranks] of byValue) {
          let set = into.get(v);
          if (!set) into.set(v, (set = new RankSet()));
          set.addAll(ranks);
        }
      }
    }
    const mismatched: RankSummary['mismatched'] = [];
    for (const setting of RANK_SETTINGS) {
      const byValue = settings.get(setting);
      if (byValue && byValue.size > 1) mismatched.push({ setting, values: [...byValue].map(([value, ranks]) => ({ value, ranks })) });
    }
    const lost = worldSize !== undefined ? present.missingBelow(worldSize) : [];
    return { worldSize, runId, present: present.size, lost, otherRun, mismatched };
  }
}

export function summarizeRanks(records: Iterable<RankRecord>): RankSummary {
  const acc = new RanksAcc();
  for (const r of records) acc.add(r);
  return acc.summary();
}

/** `0-3, 5, 7-8`: a list of ranks in short form. */
export function rankList(nodes: Iterable<number>): string {
  const set = new RankSet();
  for (const n of nodes) set.add(n);
  return set.toString();
}

/** The lines a user must read about the ranks of this run (empty when all is well). */
export function rankNotes(s: RankSummary): string[] {
  const notes: string[] = [];
  if (s.worldSize !== undefined && s.lost.length > 0) {
    const which = s.lost.length === 1 ? `rank ${s.lost[0]}` : `ranks ${rankList(s.lost)}`;
    notes.push(
      `${which} of ${s.worldSize} wrote no measurements (the process crashed, was killed before it could write, or ` +
        `never started): the profile has ${s.present} of ${s.worldSize} ranks`,
    );
  }
  for (const o of s.otherRun) {
    const which = o.ranks.size === 1 ? `rank ${o.ranks}'s files are` : `the files of ranks ${o.ranks} (${o.ranks.size}) are`;
    notes.push(
      `${o.source}${o.ranks.size > 1 ? ' and others' : ''}: ${which} from another run (MPI Run Id ${o.runId}, not ${s.runId}): ` +
        'left over in this directory, not part of this run',
    );
  }
  for (const m of s.mismatched) {
    const parts = m.values.map((v) => `${v.value} (rank${v.ranks.size > 1 ? 's' : ''} ${v.ranks})`);
    notes.push(`ranks were measured with different settings: ${m.setting} is ${parts.join(', ')}; their profiles do not compare`);
  }
  return notes;
}
