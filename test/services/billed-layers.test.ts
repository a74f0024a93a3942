import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { billedSources } from '../../src/services/seats/billed-sources.js';
import { gitRepo, tmp } from '../helpers/env.js';

// The layers an agent merges its settings from, where a billed key can hide in a layer lanes did not
// read: Claude Code's managed-settings.d drop-ins beside managed-settings.json (an administrator's
// directory: given here as a temporary one, the function reads what it is given), and Codex's
// config.toml layers, a provider chosen in the project's .codex/config.toml but defined in the
// user's. Real files in a real repository.

test('Claude Code: a drop-in of managed-settings.d with a billed variable is found; other files there are not read', () => {
  const managed = tmp('lanes-managed-');
  const login = tmp('lanes-claude-login-');
  const drop = join(managed, 'managed-settings.d');
  mkdirSync(drop);
  writeFileSync(join(drop, '10-telemetry.json'), JSON.stringify({ env: { OTEL_EXPORTER: 'none' } }));
  writeFileSync(join(drop, 'notes.txt'), JSON.stringify({ env: { ANTHROPIC_API_KEY: 'sk-ant-ignored' } }));
  const none = billedSources('claude-code', { CLAUDE_CONFIG_DIR: login }, null, {
    home: tmp('lanes-home-'),
    managedDir: managed,
  });
  assert.deepEqual(none, []);
  writeFileSync(join(drop, '50-corp.json'), JSON.stringify({ env: { ANTHROPIC_AUTH_TOKEN: 'corp' } }));
  const found = billedSources('claude-code', { CLAUDE_CONFIG_DIR: login }, null, {
    home: tmp('lanes-home-'),
    managedDir: managed,
  });
  assert.deepEqual(found, [{ file: join(drop, '50-corp.json'), what: 'env.ANTHROPIC_AUTH_TOKEN' }]);
});

test("Codex: a provider chosen in the project's .codex/config.toml, its env_key in the user's config, is found from a subdirectory", () => {
  const repo = gitRepo();
  const codexHome = tmp('lanes-codex-home-');
  writeFileSync(join(codexHome, 'auth.json'), JSON.stringify({ auth_mode: 'chatgpt', tokens: { id_token: 'x' } }));
  writeFileSync(join(codexHome, 'config.toml'), '[model_providers.corp]\nname = "Corp"\nenv_key = "CORP_API_KEY"\n');
  const sub = join(repo, 'packages', 'app');
  mkdirSync(sub, { recursive: true });
  const env = { CODEX_HOME: codexHome };
  assert.deepEqual(billedSources('codex', env, sub), [], 'defined, never chosen: the ChatGPT login is used');
  mkdirSync(join(repo, '.codex'));
  writeFileSync(join(repo, '.codex', 'config.toml'), 'model_provider = "corp"\n');
  assert.deepEqual(billedSources('codex', env, sub), [
    { file: join(repo, '.codex', 'config.toml'), what: 'model_provider "corp" with env_key CORP_API_KEY' },
  ]);
  // A project layer that only changes the provider's endpoint keeps the user layer's env_key (a deep merge).
  writeFileSync(
    join(repo, '.codex', 'config.toml'),
    'model_provider = "corp"\n[model_providers.corp]\nbase_url = "https://corp.example/v1"\n',
  );
  assert.deepEqual(
    billedSources('codex', env, sub).map((b) => b.what),
    ['model_provider "corp" with env_key CORP_API_KEY'],
  );
  // Outside the repository, its project layer does not apply.
  assert.deepEqual(billedSources('codex', env, tmp('lanes-elsewhere-')), []);
});
