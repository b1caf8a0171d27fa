/**
 * hyprof as a library: the probe API for Node programs (src/events), and the profile model, reader
 * and writer for tools that work on TAU profiles.
 */
export { flush, group, param, phase, region, timer } from './events/api.js';
export type { EventOptions, Group, ParamValues, Timer } from './events/api.js';
export { HyprofUsageError } from './events/errors.js';
export { loadAddon } from './events/addon.js';
export type { HyprofAddon } from './events/addon.js';
export type { TauEvent, TauProfile, TauThreadProfile, TauUserEvent } from './profile/tau-model.js';
export { readTauProfileDir } from './profile/tau-reader.js';
