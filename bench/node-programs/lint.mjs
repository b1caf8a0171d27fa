// A linter: ESLint with a set of its core rules (scope analysis, control flow, and stylistic ones
// that walk every token) over the JavaScript TypeScript built from src/, eight times.
import { ESLint } from 'eslint';
import { jsSources } from './files.mjs';

const rules = [
  'no-unused-vars', 'no-undef', 'no-shadow', 'no-unreachable', 'no-constant-condition', 'no-dupe-keys', 'no-redeclare',
  'no-use-before-define', 'prefer-const', 'no-var', 'eqeqeq', 'complexity', 'max-depth', 'max-params', 'no-loop-func',
  'no-unused-expressions', 'consistent-return', 'no-else-return', 'no-useless-escape', 'no-self-compare', 'curly',
  'dot-notation', 'no-implicit-coercion', 'no-param-reassign', 'prefer-template', 'object-shorthand',
];
const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    {
      languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
      rules: Object.fromEntries(rules.map((r) => [r, 'warn'])),
    },
  ],
});
let problems = 0;
for (let round = 0; round < 8; round++)
  for (const f of jsSources()) for (const r of await eslint.lintText(f.text, { filePath: f.path })) problems += r.messages.length;
console.log(`lint: ${problems} messages`);
