// A minifier: terser (compress and mangle, two passes) over the JavaScript TypeScript built from
// src/, every fourth file, each on its own.
import { minify } from 'terser';
import { jsSources } from './files.mjs';

let bytes = 0;
for (const f of jsSources(4)) bytes += (await minify(f.text, { module: true, compress: { passes: 2 }, mangle: true })).code.length;
console.log(`minify: ${bytes} bytes`);
