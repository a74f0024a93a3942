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
