import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, gitRepo, lanes, lanesEnv, tmp } from '../helpers/env.js';

// `lanes hooks install AGENT` also registers `lanes mcp` in the agent's MCP config (and, with
// --statusline, Claude Code's status line), merge-safe; uninstall gives back every byte.
const EXISTING: Record<string, string> = {
  '.mcp.json': '{\n    "mcpServers": {\n        "github": {"command": "gh-mcp", "args": []}\n    }\n}\n',
  '.cursor/mcp.json': '{\r\n  "mcpServers": {}\r\n}',
  '.codex/config.toml': 'model = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"',
  '.gemini/settings.json': '{\n  // mine\n  "mcpServers": {"x": {"command": "x"}},\n  "theme": "Dracula"\n}\n',
  '.claude/settings.json': '{\n  "statusLine": {"type": "command", "command": "~/bin/my-status"}\n}\n',
};

function write(repo: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(repo, file, '..'), { recursive: true });
    writeFileSync(join(repo, file), text);
  }
}

test('the MCP server is registered in every agent config beside the others, and uninstall restores every byte', async () => {
  const repo = gitRepo();
  write(repo, EXISTING);
  const opts = { env: { ...lanesEnv(), HOME: tmp() }, cwd: repo };
  const r = await lanes(['hooks', 'install', 'all', '--statusline', '--command', `node ${CLI}`], opts);
  assert.equal(r.code, 0, r.stderr);
  const json = (f: string) =>
    JSON.parse(readFileSync(join(repo, f), 'utf8').replace(/\/\/ mine/, '')) as Record<string, Record<string, unknown>>;
  for (const [file, agent] of [
    ['.mcp.json', 'claude-code'],
    ['.cursor/mcp.json', 'cursor'],
    ['.gemini/settings.json', 'gemini'],
  ] as const) {
    assert.deepEqual(
      json(file)['mcpServers']?.['lanes'],
      { command: 'node', args: [CLI, 'mcp', '--agent', agent] },
      file,
    );
  }
  assert.ok(json('.mcp.json')['mcpServers']?.['github'], 'the other server stays');
  const toml = readFileSync(join(repo, '.codex/config.toml'), 'utf8');
  assert.match(
    toml,
    /^model = "o4"\n\n\[mcp_servers\.docs\]\ncommand = "docs-mcp"\n\n\[mcp_servers\.lanes\]\ncommand = "node"\nargs = \[.*"mcp","--agent","codex"\]\n$/s,
  );
  // A status line was configured: left alone, and the note says how to show both.
  assert.equal(json('.claude/settings.json')['statusLine']?.['command'], '~/bin/my-status');
  assert.match(r.stdout, /a status line is configured already .*input=\$\(cat\)/);

  const again = await lanes(['hooks', 'install', 'all', '--command', `node ${CLI}`], opts);
  assert.doesNotMatch(again.stdout, /added the/, 'a second install changes nothing');

  // The registered server starts and answers, as the agent would start it.
  const server = json('.mcp.json')['mcpServers']?.['lanes'] as { command: string; args: string[] };
  const client = new Client({ name: 't', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: server.command, args: server.args, env: opts.env, cwd: repo }),
  );
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'claim'));
  await client.close();

  const un = await lanes(['hooks', 'uninstall', 'all'], opts);
  assert.equal(un.code, 0, un.stderr);
  for (const [file, text] of Object.entries(EXISTING))
    assert.equal(readFileSync(join(repo, file), 'utf8'), text, `uninstall left ${file} different`);
  for (const f of ['.codex/hooks.json', '.cursor/hooks.json']) assert.equal(existsSync(join(repo, f)), false, f);
});

test('--statusline sets the status line when none is set; a server named lanes that is not lanes is left alone', async () => {
  const repo = gitRepo();
  write(repo, { '.cursor/mcp.json': '{"mcpServers": {"lanes": {"command": "some-other-lanes"}}}' });
  const opts = { env: { ...lanesEnv(), HOME: tmp() }, cwd: repo };
  const r = await lanes(['hooks', 'install', 'claude-code', 'cursor', '--statusline'], opts);
  assert.equal(r.code, 0, r.stderr);
  const settings = JSON.parse(readFileSync(join(repo, '.claude/settings.json'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(settings['statusLine'], { type: 'command', command: 'lanes statusline' });
  assert.match(r.stdout, /already has an MCP server named lanes that is not lanes mcp/);
  assert.equal(
    readFileSync(join(repo, '.cursor/mcp.json'), 'utf8'),
    '{"mcpServers": {"lanes": {"command": "some-other-lanes"}}}',
  );
  assert.equal(
    (await lanes(['hooks', 'install', 'codex', '--statusline'], opts)).code,
    2,
    '--statusline is for claude-code',
  );
  assert.equal((await lanes(['hooks', 'uninstall', 'claude-code', 'cursor'], opts)).code, 0);
  assert.equal(existsSync(join(repo, '.claude/settings.json')), false);
  assert.equal(existsSync(join(repo, '.mcp.json')), false);
  assert.equal(
    readFileSync(join(repo, '.cursor/mcp.json'), 'utf8'),
    '{"mcpServers": {"lanes": {"command": "some-other-lanes"}}}',
  );
});
