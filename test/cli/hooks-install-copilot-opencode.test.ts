import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// `lanes hooks install|uninstall|status copilot opencode`: lanes' own hooks file (Copilot CLI) and
// plugin file (OpenCode) beside what is there, its MCP server in their MCP configs beside others',
// every byte back after uninstall, and whether each agent will run them here.

function put(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

const EXISTING: Record<string, string> = {
  '.github/hooks/audit.json': '{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh"}]}}\n',
  '.github/mcp.json':
    '{\n\t"mcpServers": {\n\t\t"docs": {"type": "local", "command": "docs-mcp", "tools": ["*"]}\n\t}\n}\n',
  'opencode.json':
    '{\n  "$schema": "https://opencode.ai/config.json",\n  // the team\'s model\n  "model": "anthropic/claude-sonnet-4-5",\n  "mcp": {"jira": {"type": "remote", "url": "https://jira.example/mcp"}}\n}\n',
  '.opencode/plugins/notify.js': 'export const Notify = async () => ({})\n',
};

test('Copilot CLI and OpenCode: install beside existing hooks, plugins and MCP servers, twice changes nothing, uninstall restores every byte', async () => {
  const repo = gitRepo();
  for (const [file, text] of Object.entries(EXISTING)) put(join(repo, file), text);
  const opts = { env: { ...lanesEnv(), HOME: tmp() }, cwd: repo };
  const first = await lanes(['hooks', 'install', 'copilot', 'opencode', '--command', 'npx lanes'], opts);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /opencode: .*\.opencode\/plugins\/lanes\.js: installed the lanes plugin/);

  const hooks = JSON.parse(readFileSync(join(repo, '.github/hooks/lanes.json'), 'utf8')) as {
    version: number;
    hooks: Record<string, Record<string, unknown>[]>;
  };
  assert.equal(hooks.version, 1);
  assert.deepEqual(hooks.hooks['preToolUse']?.[0], {
    type: 'command',
    bash: 'npx lanes hook copilot pre-tool-use',
    timeoutSec: 10,
    matcher: 'edit|create|apply_patch|bash',
  });
  assert.deepEqual(Object.keys(hooks.hooks), [
    'sessionStart',
    'preToolUse',
    'postToolUse',
    'agentStop',
    'sessionEnd',
    'notification',
    'userPromptSubmitted',
    'errorOccurred',
  ]);
  const mcp = readFileSync(join(repo, '.github/mcp.json'), 'utf8');
  assert.match(mcp, /\n\t\t"lanes": \{\n\t\t\t"type": "local"/, "the file's own tab indentation");
  assert.deepEqual((JSON.parse(mcp) as { mcpServers: Record<string, unknown> }).mcpServers['lanes'], {
    type: 'local',
    tools: ['*'],
    command: 'npx',
    args: ['lanes', 'mcp', '--agent', 'copilot'],
  });
  const oc = readFileSync(join(repo, 'opencode.json'), 'utf8');
  assert.match(oc, /the team's model/);
  assert.deepEqual(JSON.parse(oc.replace("// the team's model", '')).mcp.lanes, {
    type: 'local',
    command: ['npx', 'lanes', 'mcp', '--agent', 'opencode'],
    enabled: true,
  });
  const plugin = readFileSync(join(repo, '.opencode/plugins/lanes.js'), 'utf8');
  assert.match(plugin, /^\/\/ lanes: OpenCode plugin written by `lanes hooks install opencode`/);
  assert.match(plugin, /const LANES = \["npx","lanes"\];/);

  const installed = ['.github/hooks/lanes.json', '.github/mcp.json', 'opencode.json', '.opencode/plugins/lanes.js'];
  const snapshot = () => installed.map((f) => readFileSync(join(repo, f), 'utf8'));
  const once = snapshot();
  const second = await lanes(['hooks', 'install', 'copilot', 'opencode', '--command', 'npx lanes'], opts);
  assert.match(second.stdout, /opencode: .*lanes\.js: hooks: already there, unchanged/);
  assert.deepEqual(snapshot(), once, 'a second install changes nothing');
  // Installed again with another command: lanes' plugin is rewritten, not doubled.
  const other = await lanes(['hooks', 'install', 'opencode', '--command', 'lanes'], opts);
  assert.match(other.stdout, /updated the lanes plugin/);
  assert.match(readFileSync(join(repo, '.opencode/plugins/lanes.js'), 'utf8'), /const LANES = \["lanes"\];/);

  const un = await lanes(['hooks', 'uninstall', 'copilot', 'opencode'], opts);
  assert.equal(un.code, 0, un.stderr);
  for (const [file, text] of Object.entries(EXISTING)) assert.equal(readFileSync(join(repo, file), 'utf8'), text, file);
  assert.equal(existsSync(join(repo, '.github/hooks/lanes.json')), false);
  assert.equal(existsSync(join(repo, '.opencode/plugins/lanes.js')), false);
});

test("OpenCode: a plugin file named lanes.js that is not lanes' is refused by install and left alone by uninstall; --user installs under ~/.config/opencode", async () => {
  const repo = gitRepo();
  const home = tmp();
  const opts = { env: { ...lanesEnv(), HOME: home }, cwd: repo };
  const mine = 'export const Lanes = async () => ({}) // my own\n';
  put(join(repo, '.opencode/plugins/lanes.js'), mine);
  const r = await lanes(['hooks', 'install', 'opencode'], opts);
  assert.equal(r.code, 2, 'refused, not "already there"');
  assert.match(r.stderr, /lanes\.js exists and is not lanes' plugin \(another tool's file\); nothing was installed/);
  assert.doesNotMatch(r.stdout, /already there/);
  assert.equal(existsSync(join(repo, 'opencode.json')), false, 'nothing half-installed (no MCP entry either)');
  assert.equal(readFileSync(join(repo, '.opencode/plugins/lanes.js'), 'utf8'), mine);
  assert.equal((await lanes(['hooks', 'uninstall', 'opencode'], opts)).code, 0);
  assert.equal(readFileSync(join(repo, '.opencode/plugins/lanes.js'), 'utf8'), mine);

  assert.equal((await lanes(['hooks', 'install', 'opencode', 'copilot', '--user'], opts)).code, 0);
  assert.ok(existsSync(join(home, '.config/opencode/plugins/lanes.js')));
  assert.ok(existsSync(join(home, '.config/opencode/opencode.json')));
  assert.match(readFileSync(join(home, '.copilot/hooks/lanes.json'), 'utf8'), /lanes hook copilot session-start/);
  assert.match(readFileSync(join(home, '.copilot/mcp-config.json'), 'utf8'), /"--agent",\s*"copilot"/);
  assert.equal((await lanes(['hooks', 'uninstall', 'opencode', 'copilot', '--user'], opts)).code, 0);
  for (const f of ['.config/opencode/plugins/lanes.js', '.config/opencode/opencode.json', '.copilot/hooks/lanes.json'])
    assert.equal(existsSync(join(home, f)), false, f);
});

interface Row {
  agent: string;
  file: string;
  events: string[];
  active: { runs: string; findings: string[]; fixes: string[] } | null;
}

test('hooks status: Copilot CLI runs repository hooks only in a trusted folder and not with disableAllHooks; OpenCode loads its plugins', async () => {
  const repo = gitRepo();
  const home = tmp();
  const env: Record<string, string> = { ...lanesEnv(), HOME: home };
  delete env['COPILOT_HOME'];
  const opts = { env, cwd: repo };
  assert.equal((await lanes(['hooks', 'install', 'copilot', 'opencode'], opts)).code, 0);
  const row = async (agent: string) => {
    const r = await lanes(['hooks', 'status', agent, '--json'], opts);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as Row[]).find((x) => x.file.startsWith(repo)) as Row;
  };
  let copilot = await row('copilot');
  assert.equal(copilot.active?.runs, 'no');
  assert.match(copilot.active?.findings.join('\n') ?? '', /is not a trusted folder .*\.copilot\/config\.json/);
  assert.match(copilot.active?.fixes.join('\n') ?? '', /trust the folder/);
  const config = join(home, '.copilot', 'config.json');
  put(config, JSON.stringify({ trusted_folders: [join(repo, '..')] }));
  copilot = await row('copilot');
  assert.equal(copilot.active?.runs, 'yes', 'a trusted parent folder trusts the repository');
  put(join(repo, '.github/copilot/settings.local.json'), '{"disableAllHooks": true}');
  copilot = await row('copilot');
  assert.equal(copilot.active?.runs, 'no');
  assert.match(copilot.active?.findings.join('\n') ?? '', /disableAllHooks.*settings\.local\.json/);

  const opencode = await row('opencode');
  assert.deepEqual(opencode.events, [
    'session.created',
    'tool.execute.before',
    'tool.execute.after',
    'session.idle',
    'session.deleted',
    'exit',
  ]);
  assert.equal(opencode.active?.runs, 'yes');
  const text = await lanes(['hooks', 'status'], opts);
  assert.match(text.stdout, /opencode +\S+\.opencode\/plugins\/lanes\.js +installed +yes/);
});
