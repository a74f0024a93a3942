import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// OpenCode, the released CLI, against the scripted chat completions at `url` (run-world.ts's
// `chat`): a provider in the user's config under `home` (a project's opencode.json is lanes'
// plugin's), run in `cwd` — OpenCode takes its project directory from PWD.
export function opencodeRunEnv(home: string, cwd: string, url: string): Record<string, string> {
  const provider = {
    npm: '@ai-sdk/openai-compatible',
    name: 'Fake',
    options: { baseURL: `${url}/v1`, apiKey: 'x' },
    models: { m: { name: 'm', tool_call: true } },
  };
  const config = { provider: { fake: provider }, model: 'fake/m', permission: { edit: 'allow', bash: 'allow' } };
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify(config, null, 2));
  return {
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PWD: cwd,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
}

/** `opencode run` of `prompt` on the scripted model. */
export const opencodeArgs = (prompt: string): string[] => ['run', '-m', 'fake/m', prompt];
