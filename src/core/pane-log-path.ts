import { join } from 'node:path';
import { lanesHome } from './paths.js';
import { refSafeSessionId } from './slug.js';

/** Where the last screen of a session lanes new started in tmux is kept (cli/pane-log.ts writes it). */
export function paneLogOf(id: string, env: Record<string, string | undefined> = process.env): string {
  return join(lanesHome(env), 'logs', `${refSafeSessionId(id)}.pane.log`);
}
