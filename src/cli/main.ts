#!/usr/bin/env node
/** The `hyprof` command's entry point (see program.ts). */
import { startEarlySignals } from '../base/early-signals.js';
import './batch-tiering.js';

// Before the rest of hyprof is loaded (a moment on a loaded node): a signal now is said, not silent.
startEarlySignals();
const { main } = await import('./program.js');
await main(process.argv);
