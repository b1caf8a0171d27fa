/**
 * The viewer's Fold view data (/api/fold): the folds of a profile directory's fold files
 * (src/report/fold.ts), the same the report prints, for one series at a time.
 */
import { UserError } from '../base/errors.js';
import { listFoldFiles, readFoldFile } from '../profile/fold-file.js';
import { foldReports, type FoldReport } from '../report/fold.js';
import { ApiError, type Query } from './api.js';

export interface FoldAnswer {
  /** Every folded series of the profile (the patterns of HYPROF_FOLD). */
  series: string[];
  /** Time metrics the fold may be taken over (TIME, CPU_TIME when measured). */
  axes: string[];
  name?: string;
  reports: FoldReport[];
}

export function foldAnswer(dir: string, q: Query): FoldAnswer {
  const files = listFoldFiles(dir);
  if (files.length === 0) return { series: [], axes: [], reports: [] };
  const series = new Set<string>();
  let axes: string[] = [];
  for (const f of files) {
    const data = readFoldFile(f);
    for (const s of data.series) series.add(s.name);
    axes = data.metrics.filter((m) => /TIME|task-clock|cpu-clock/i.test(m));
  }
  const name = q.get('name') || [...series][0];
  const bins = Number(q.get('bins') ?? 20);
  if (!Number.isInteger(bins) || bins < 1 || bins > 1000) throw new ApiError(400, `bins=${q.get('bins')}: a whole number from 1 to 1000`);
  try {
    return { series: [...series], axes, name, reports: foldReports(dir, { name, bins, time: q.get('time') || undefined }) };
  } catch (e) {
    if (e instanceof UserError) throw new ApiError(400, e.message);
    throw e;
  }
}
