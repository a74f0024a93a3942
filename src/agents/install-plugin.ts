import { LanesError } from '../core/errors.js';
import type { InstallSpec } from './install-spec.js';

// An agent whose hooks are a plugin file lanes writes whole (OpenCode): install creates the file,
// or rewrites lanes' own older one (another prefix, an older lanes); a file of that name that is
// not lanes' is refused (E_CONFIG, before anything is written) and left alone; uninstall deletes lanes' file and nothing else, so the
// directory is as it was before install.

export interface PluginPlan {
  after: string | null;
  notes: string[];
}

export const isLanesPlugin = (spec: InstallSpec, text: string | null): boolean =>
  text !== null && spec.plugin !== undefined && text.startsWith(spec.plugin.mark);

export function pluginInstall(spec: InstallSpec, file: string, before: string | null, prefix: string): PluginPlan {
  if (before !== null && !isLanesPlugin(spec, before))
    throw new LanesError(
      'E_CONFIG',
      `${file} exists and is not lanes' plugin (another tool's file); nothing was installed`,
      {
        hint: `move it away (OpenCode loads every file in that folder, so any other name works for it), then install again`,
        details: { file },
      },
    );
  return { after: spec.plugin?.source(prefix) ?? before, notes: spec.notes };
}

export function pluginUninstall(spec: InstallSpec, before: string | null): string | null {
  return isLanesPlugin(spec, before) ? null : before;
}

/** The events lanes' plugin forwards when the file is lanes' (all of them: it is one file). */
export function pluginEvents(spec: InstallSpec, text: string): string[] {
  return isLanesPlugin(spec, text) ? spec.entries.map((e) => e.event) : [];
}
