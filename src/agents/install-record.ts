import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lanesHome } from '../core/paths.js';
import { makeDirsSync } from '../core/make-dirs.js';

/**
 * What an install created, so that uninstall removes exactly that: a config file that did not
 * exist, or a "hooks" key the file did not have. Without a record (a project config installed on
 * another machine) uninstall removes a "hooks" object and a file that hold nothing but lanes'.
 * Kept in $LANES_HOME/hooks-installed.json, keyed by the config's path.
 */
export interface InstallRecord {
  createdFile: boolean;
  /** The key lanes' entries went under ("hooks", "mcpServers") did not exist. */
  createdHooks: boolean;
  /** TOML: the separator put before lanes' table. */
  separator?: string;
  /** Events whose list was there and empty before lanes' entry went in: uninstall leaves it empty. */
  keptEmpty?: string[];
}

const recordFile = (env: Record<string, string | undefined>) => join(lanesHome(env), 'hooks-installed.json');

function readAll(env: Record<string, string | undefined>): Record<string, InstallRecord> {
  try {
    const v = JSON.parse(readFileSync(recordFile(env), 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, InstallRecord>) : {};
  } catch {
    return {};
  }
}

function writeAll(env: Record<string, string | undefined>, all: Record<string, InstallRecord>): void {
  const file = recordFile(env);
  makeDirsSync(join(file, '..'), 0o700);
  writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
  renameSync(`${file}.${process.pid}.tmp`, file);
}

export function getRecord(file: string, env: Record<string, string | undefined> = process.env): InstallRecord | null {
  return readAll(env)[file] ?? null;
}

export function setRecord(
  file: string,
  record: InstallRecord | null,
  env: Record<string, string | undefined> = process.env,
): void {
  const all = readAll(env);
  if (record) all[file] = record;
  else delete all[file];
  writeAll(env, all);
}
