#!/usr/bin/env node
/** The `hyprof` command's entry point (see program.ts). */
import { main } from './program.js';

await main(process.argv);
