import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { World } from './world.js';

// GitHub Copilot CLI, headless and offline: COPILOT_OFFLINE=true with its own model provider
// (BYOK, COPILOT_PROVIDER_TYPE=anthropic) pointed at the local Messages API at `url`, no GitHub
// sign-in. Its hooks (the repository's .github/hooks/) load only in a folder the user trusted
// (`trusted`: trusted_folders in $COPILOT_HOME/config.json, under `home`).
export function copilotRunEnv(home: string, trusted: string, url: string): Record<string, string> {
  const dir = join(home, '.copilot');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ trusted_folders: [trusted] }, null, 2));
  return {
    COPILOT_HOME: dir,
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_BASE_URL: url,
    COPILOT_PROVIDER_API_KEY: 'sk-ant-lanes-test-not-a-key',
    COPILOT_MODEL: 'claude-sonnet-4.5',
  };
}

/** Copilot's arguments for a headless run of `prompt` that may run any tool on any path. */
export const copilotArgs = (prompt: string): string[] => [
  '-p',
  prompt,
  '--allow-all-tools',
  '--allow-all-paths',
  '--no-color',
];

/**
 * Resolves once Copilot's own record (events.jsonl) holds `n` usage records: Copilot writes each a
 * moment after its model call, and a test's model may answer the next request before then.
 */
export async function copilotRecorded(w: World, n: number): Promise<void> {
  const dir = join(w.home, '.copilot', 'session-state');
  const count = () => {
    if (!existsSync(dir)) return 0;
    let c = 0;
    for (const id of readdirSync(dir)) {
      const f = join(dir, id, 'events.jsonl');
      if (existsSync(f)) c += readFileSync(f, 'utf8').split('{"type":"session.usage_record"').length - 1;
    }
    return c;
  };
  for (let i = 0; i < 200 && count() < n; i++) await new Promise((r) => setTimeout(r, 50));
  if (count() < n) throw new Error(`Copilot recorded ${count()} of ${n} model calls in 10 s`);
}
