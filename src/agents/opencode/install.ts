import type { InstallSpec } from '../install-spec.js';
import { PLUGIN_MARK, opencodePlugin, opencodePrefix } from './plugin.js';

// OpenCode runs plugins, not hook commands: lanes installs one plugin file (./plugin.ts) that
// calls `lanes hook opencode EVENT` for each of these (the entries name what it forwards; the
// file holds no per-event config). Local plugins are loaded from .opencode/plugins/ and
// ~/.config/opencode/plugins/ (opencode.ai/docs/plugins).
export const opencodeInstall: InstallSpec = {
  agent: 'opencode',
  projectFile: '.opencode/plugins/lanes.js',
  userFile: '.config/opencode/plugins/lanes.js',
  shape: 'plugin',
  plugin: { source: opencodePlugin, mark: PLUGIN_MARK, prefixOf: opencodePrefix },
  handlerExtra: {},
  newFile: {},
  entries: [
    { event: 'session.created', arg: 'session.created', timeout: 10 },
    { event: 'tool.execute.before', arg: 'tool.execute.before', timeout: 10 },
    { event: 'tool.execute.after', arg: 'tool.execute.after', timeout: 10 },
    { event: 'session.idle', arg: 'session.idle', timeout: 10 },
    { event: 'session.deleted', arg: 'session.deleted', timeout: 10 },
    { event: 'exit', arg: 'exit', timeout: 5 },
  ],
  notes: ['OpenCode loads the lanes plugin when it starts: restart OpenCode sessions that are already running.'],
  // opencode.json: "mcp": {"lanes": {"type": "local", "command": [...], "enabled": true}} (opencode.ai/docs/mcp-servers).
  mcp: {
    projectFile: 'opencode.json',
    userFile: '.config/opencode/opencode.json',
    format: 'json',
    key: 'mcp',
    notes: [],
  },
};
