// Lint: typescript-eslint's recommended rules, no import cycles, and the layer rule of DESIGN.md
// (dependencies point down only: cli → services → store/git → core).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const layerPatterns = (folder, forbidden) =>
  forbidden.map((f) => ({
    group: [`**/${f}/*`, `**/${f}/**`],
    message: `src/${folder} may not import src/${f} (see DESIGN.md, layers)`,
    // Adapters translate to and from the library's types, but never call it: the CLI reaches
    // behaviour through the library entry only, also by way of agents/.
    ...(folder === 'agents' && f === 'services' ? { allowTypeImports: true } : {}),
  }));
const layer = (folder, forbidden) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: layerPatterns(folder, forbidden) }] },
});
// A later config entry replaces a rule's options for its files: agent entries repeat the agents' layer rule.
const AGENT_LAYER = ['cli', 'ui', 'mcp', 'store', 'git', 'services'];
const AGENTS = ['claude-code', 'codex', 'cursor', 'gemini', 'copilot', 'opencode'];
const noDisk = ['node:fs', 'node:fs/promises', 'fs'].map((name) => ({
  name,
  message: 'agent adapters never read the disk (see src/agents/select.ts)',
}));

export default tseslint.config(
  // The audit's corpus is other people's automation as written, not lanes' code (test/fixtures/audit/README.md).
  { ignores: ['dist/**', 'node_modules/**', '.bench-tmp/**', 'test/fixtures/audit/**'] },
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
      // Small files: past 300 lines a file holds more than one idea; split it.
      'max-lines': ['error', { max: 300 }],
    },
  },
  layer('core', ['store', 'services', 'git', 'cli', 'agents', 'ui', 'mcp']),
  layer('store', ['services', 'git', 'cli', 'agents', 'ui', 'mcp']),
  layer('git', ['store', 'services', 'cli', 'agents', 'ui', 'mcp']),
  layer('services', ['cli', 'agents', 'ui', 'mcp']),
  layer('agents', AGENT_LAYER),
  // The library's domains (src/services/<domain>/) are wired together in services/lanes.ts and reached
  // through the object it builds: no domain imports the wiring (its types, lanes-api.ts, it may).
  {
    files: ['src/services/*/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...layerPatterns('services', ['cli', 'agents', 'ui', 'mcp']),
            {
              group: ['../lanes.js', '../../lanes.js'],
              message: 'a domain never imports the wiring (services/lanes.ts)',
            },
          ],
        },
      ],
    },
  },
  // The CLI reaches behaviour only through the library entry (src/index.ts): the object openLanes()
  // returns is the one way in, for it as for the dashboard and the MCP server.
  // `lanes mcp` starts the MCP server (src/mcp) and `lanes ui` the dashboard (src/ui): the one
  // command each that imports them.
  layer('cli', ['services', 'store', 'git']),
  // The MCP server and the dashboard, like the CLI, reach behaviour only through the library entry.
  layer('mcp', ['cli', 'agents', 'ui', 'services', 'store', 'git']),
  layer('ui', ['cli', 'agents', 'mcp', 'services', 'store', 'git']),
  // Adapters translate and nothing else: no adapter imports another agent's folder, and none reads
  // the disk (adapter selection, agents/select.ts, decides which adapter answers).
  ...AGENTS.map((agent) => ({
    files: [`src/agents/${agent}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: noDisk,
          patterns: [
            ...layerPatterns('agents', AGENT_LAYER),
            ...AGENTS.filter((a) => a !== agent).map((other) => ({
              group: [`**/${other}/*`],
              message: `an adapter never imports another agent's (${other})`,
            })),
          ],
        },
      ],
    },
  })),
  {
    files: ['src/agents/adapter.ts', 'src/agents/claude-shaped.ts', 'src/agents/apply-patch.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: noDisk, patterns: layerPatterns('agents', AGENT_LAYER) }] },
  },
  {
    files: ['**/*.mjs', 'scripts/**', 'bench/**'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
      },
    },
  },
);
