// A transpiler: @babel/core with @babel/preset-env (targets as old as IE 11, so that most plugins
// run) over every sixth JavaScript file TypeScript built from src/.
import { transformAsync } from '@babel/core';
import presetEnv from '@babel/preset-env';
import { jsSources } from './files.mjs';

let bytes = 0;
for (const f of jsSources(6)) {
  const out = await transformAsync(f.text, {
    filename: f.path,
    babelrc: false,
    configFile: false,
    sourceType: 'module',
    presets: [[presetEnv, { targets: 'ie 11' }]],
  });
  bytes += out.code.length;
}
console.log(`transpile: ${bytes} bytes`);
