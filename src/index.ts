/**
 * hyprof as a library. The probe API for Node programs grows here (src/events); the profile model,
 * reader and writer are exported for tools that work on TAU profiles.
 */
export { loadAddon } from './events/addon.js';
export type { HyprofAddon } from './events/addon.js';
export type { TauEvent, TauProfile, TauThreadProfile, TauUserEvent } from './output/tau-model.js';
export { readTauProfileDir } from './output/tau-reader.js';
