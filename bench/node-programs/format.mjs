// A formatter: prettier over every fourth TypeScript source of src/.
import * as prettier from 'prettier';
import { tsSources } from './files.mjs';

let bytes = 0;
for (const f of tsSources(4)) bytes += (await prettier.format(f.text, { filepath: f.path })).length;
console.log(`format: ${bytes} bytes`);
