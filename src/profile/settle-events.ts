/**
 * The settle time of Node async regions, as the profile keeps it: a TAU atomic user event per region
 * (and per parameter specialisation), `Settle time (us) : <region>`, with count, min, max, mean and
 * sum of squares of the wall time from each instance's start to its promise's settlement, in
 * microseconds. The region's timer keeps its own-code time (so that values add up, docs/assembly.md);
 * ParaProf, TAU's reader and every tool that reads user events see the settle time beside it.
 * Instances still pending when their thread exited are kept apart, under
 * `Unsettled at exit, time so far (us) : <region>`. The runtime writes both (native/core/ext.c,
 * hyprof_ext_settled); the names here are the one place the TypeScript side knows them.
 */
import type { TauUserEvent } from './tau-model.js';

export const SETTLE_PREFIX = 'Settle time (us) : ';
export const UNSETTLED_PREFIX = 'Unsettled at exit, time so far (us) : ';

/** The region a settle-time user event is about, or undefined for any other user event. */
export function settledRegion(userEventName: string): string | undefined {
  return userEventName.startsWith(SETTLE_PREFIX) ? userEventName.slice(SETTLE_PREFIX.length) : undefined;
}

/** The region an unsettled-at-exit user event is about, or undefined for any other user event. */
export function unsettledRegion(userEventName: string): string | undefined {
  return userEventName.startsWith(UNSETTLED_PREFIX) ? userEventName.slice(UNSETTLED_PREFIX.length) : undefined;
}

/** Settle time of one region on one thread (or pooled over threads), in microseconds. */
export interface SettleStats {
  region: string;
  /** Instances that settled. */
  count: number;
  mean: number;
  min: number;
  max: number;
  /** Instances still pending at their thread's exit (their time so far is not in the figures). */
  unsettled: number;
}

/** The settle statistics of a thread's user events, by region name (in the name's stored form). */
export function settleStatsOf(users: readonly TauUserEvent[]): Map<string, SettleStats> {
  const out = new Map<string, SettleStats>();
  const entry = (region: string) => {
    let s = out.get(region);
    if (!s) out.set(region, (s = { region, count: 0, mean: 0, min: 0, max: 0, unsettled: 0 }));
    return s;
  };
  for (const u of users) {
    const settled = settledRegion(u.name);
    if (settled !== undefined) Object.assign(entry(settled), { count: u.count, mean: u.mean, min: u.min, max: u.max });
    const pending = unsettledRegion(u.name);
    if (pending !== undefined) entry(pending).unsettled = u.count;
  }
  return out;
}
