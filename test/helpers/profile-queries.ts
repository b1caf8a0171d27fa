/**
 * Small look-ups on a read TAU profile that the API tests (TAU's C/C++ macros, the Fortran module
 * and TAU's Fortran names) share: the main thread, an event's calls and group by its display name,
 * a user event's count and sum (rounded to 1/1000: the profile stores mean and count).
 */
import { displayName, type TauThreadProfile } from '../../src/profile/tau-model.js';
import { readTauProfileDir } from '../../src/profile/tau-reader.js';

export function mainThread(dir: string): TauThreadProfile {
  return readTauProfileDir(dir).threads[0][0];
}

export function calls(t: TauThreadProfile, name: string): number | undefined {
  return t.events.find((e) => displayName(e.name) === name)?.calls;
}

export function group(t: TauThreadProfile, name: string): string | undefined {
  return t.events.find((e) => displayName(e.name) === name)?.group;
}

export function userEvent(t: TauThreadProfile, name: string): { count: number; sum: number } | undefined {
  const u = t.userEvents.find((e) => e.name === name);
  return u && { count: u.count, sum: Math.round(u.mean * u.count * 1000) / 1000 };
}
