import type { NotifyConfig } from '../../core/config-notify.js';
import { DEFAULT_CONFIG } from '../../core/config.js';
import { userConfigOnly } from '../config.js';

/** `[notify]` of the user's config (the only place it may be), defaults when absent. */
export async function loadUserNotify(env: Record<string, string | undefined>): Promise<NotifyConfig> {
  return (await userConfigOnly(env)).notify ?? DEFAULT_CONFIG.notify;
}
