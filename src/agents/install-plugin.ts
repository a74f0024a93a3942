import type { InstallSpec } from './install-spec.js';

// An agent whose hooks are a plugin file lanes writes whole (OpenCode): install creates the file,
// or rewrites lanes' own older one (another prefix, an older lanes); a file of that name that is
// not lanes' is left alone with a note; uninstall deletes lanes' file and nothing else, so the
// directory is as it was before install.

export interface PluginPlan {
  after: string | null;
  notes: string[];
}

export const isLanesPlugin = (spec: InstallSpec, text: string | null): boolean =>
  text !== null && spec.plugin !== undefined && text.startsWith(spec.plugin.mark);

export function pluginInstall(spec: InstallSpec, file: string, before: string | null, prefix: string): PluginPlan {
  if (before !== null && !isLanesPlugin(spec, before))
    return {
      after: before,
      notes: [`${file} exists and is not lanes' plugin; lanes left it (move it away and install again)`],
    };
  return { after: spec.plugin?.source(prefix) ?? before, notes: spec.notes };
}

export function pluginUninstall(spec: InstallSpec, before: string | null): string | null {
  return isLanesPlugin(spec, before) ? null : before;
}

/** The events lanes' plugin forwards when the file is lanes' (all of them: it is one file). */
export function pluginEvents(spec: InstallSpec, text: string): string[] {
  return isLanesPlugin(spec, text) ? spec.entries.map((e) => e.event) : [];
}
