// A linter: ESLint with a set of its core rules (scope analysis, control flow, and stylistic ones
// that walk every token) over every other JavaScript file TypeScript built from src/.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { jsSources } from './files.mjs';

const rules = [
  'no-unused-vars', 'no-undef', 'no-shadow', 'no-unreachable', 'no-constant-condition', 'no-dupe-keys', 'no-redeclare',
  'no-use-before-define', 'prefer-const', 'no-var', 'eqeqeq', 'complexity', 'max-depth', 'max-params', 'no-loop-func',
  'no-unused-expressions', 'consistent-return', 'no-else-return', 'no-useless-escape', 'no-self-compare', 'curly',
  'dot-notation', 'no-implicit-coercion', 'no-param-reassign', 'prefer-template', 'object-shorthand',
];
const eslint = new ESLint({
  cwd: join(import.meta.dirname, '..', '..'), // the files linted lie under the repository, not this folder
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.js'],
      languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
      rules: Object.fromEntries(rules.map((r) => [r, 'warn'])),
    },
  ],
});
let problems = 0;
for (const f of jsSources(2)) for (const r of await eslint.lintText(f.text, { filePath: f.path })) problems += r.messages.length;
console.log(`lint: ${problems} messages`);
