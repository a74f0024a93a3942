// Lint: typescript-eslint's recommended rules, no import cycles, and the layer rule of DESIGN.md
// (dependencies point down only: cli → services → store/git → core).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const layer = (folder, forbidden) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map((f) => ({ group: [`**/${f}/*`, `**/${f}/**`], message: `src/${folder} may not import src/${f} (see DESIGN.md, layers)` })) }],
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.bench-tmp/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    // The TypeScript resolver maps './x.js' imports to x.ts; without it no-cycle sees nothing.
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // no-cycle parses each imported file; it needs to know .ts files take the TypeScript parser.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js', '.mjs'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  layer('core', ['store', 'services', 'git', 'cli', 'agents', 'ui']),
  layer('store', ['services', 'git', 'cli', 'agents', 'ui']),
  layer('git', ['store', 'services', 'cli', 'agents', 'ui']),
  layer('services', ['cli', 'agents', 'ui']),
  layer('agents', ['cli', 'ui', 'store', 'git']),
  { files: ['**/*.mjs', 'scripts/**', 'bench/**'], languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', URL: 'readonly' } } },
);
