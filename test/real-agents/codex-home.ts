import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** $CODEX_HOME/config.toml: the fake provider (gpt-5.5 is in Codex's bundled catalog: apply_patch is offered), the project trusted or not. */
export function codexHome(home: string, url: string, repo: string, trusted: boolean): string {
  const dir = join(home, '.codex');
  mkdirSync(dir, { recursive: true });
  const provider = [
    'model = "gpt-5.5"',
    'model_provider = "lanes_fake"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.lanes_fake]',
    'name = "lanes fake model"',
    `base_url = "${url}/v1"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ];
  const trust = trusted ? [`[projects.${JSON.stringify(repo)}]`, 'trust_level = "trusted"', ''] : [];
  writeFileSync(join(dir, 'config.toml'), [...provider, ...trust].join('\n'));
  return dir;
}
