/**
 * The single executable's entry point (scripts/build-sea.sh bundles from here into one CommonJS
 * file, which has no top-level await; main.ts is the package's entry point).
 */
import { startEarlySignals } from '../base/early-signals.js';
import './batch-tiering.js';
import { main } from './program.js';

startEarlySignals();
void main(process.argv);
