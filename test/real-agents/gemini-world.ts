import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, gitRepo, lanesEnv, tmp } from '../helpers/env.js';
import type { World } from './world.js';

// The world of the Gemini CLI seats tests: a repository with one commit, lanes' config, and each
// seat's GEMINI_CLI_HOME as a user leaves it after choosing how to sign in and trusting the repository.

/** A committed repository, a base directory, lanes with `config` as its user config. */
export function geminiSeatWorld(prefix: string, config: string): { w: World; base: string } {
  const repo = gitRepo();
  writeFileSync(join(repo, 'README.md'), 'seats\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo });
  const base = tmp(prefix);
  writeFileSync(join(base, 'config.toml'), config);
  const w: World = {
    repo,
    env: { ...lanesEnv(), LANES_CONFIG: join(base, 'config.toml') },
    home: join(base, 'home'),
    lanesCommand: `${process.execPath} ${CLI}`,
  };
  return { w, base };
}

/** `base/gemini-NAME`, a GEMINI_CLI_HOME signed in by `auth` (settings' selectedType) that trusts `repo`. */
export function geminiHome(
  base: string,
  name: string,
  repo: string,
  auth: 'gemini-api-key' | 'oauth-personal',
): string {
  const home = join(base, `gemini-${name}`);
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = { security: { auth: { selectedType: auth } }, privacy: { usageStatisticsEnabled: false } };
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [repo]: 'TRUST_FOLDER' }));
  return home;
}

/**
 * A Gemini CLI run's own variables against the fake Gemini API at `url`, its home (`w.home`) left as
 * a user leaves it after choosing an API key and trusting the repository.
 */
export function geminiRunEnv(w: World, url: string): Record<string, string> {
  const dir = join(w.home, '.gemini');
  mkdirSync(dir, { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings));
  writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify({ [w.repo]: 'TRUST_FOLDER' }));
  return { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'lanes-test-not-a-key', GEMINI_CLI_NO_RELAUNCH: 'true' };
}

/** Gemini CLI's arguments for a headless run of `prompt` that may run tools. */
export const geminiArgs = (prompt: string): string[] => [
  '-p',
  prompt,
  '--approval-mode',
  'yolo',
  '-m',
  'gemini-2.5-flash',
  '--output-format',
  'json',
];
