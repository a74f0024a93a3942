import { after } from 'node:test';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, FIXTURES } from './env.js';

/**
 * An agent with lanes' MCP server, through the SDK's own client over stdio: the client spawns a
 * fake agent process (test/fixtures/fake-agent.mjs) that runs its session-start hook and then
 * `lanes mcp` (the built CLI) as its child. agentSession '-': no hook ran.
 */
export async function mcpAgent(
  agentSession: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(FIXTURES, 'fake-agent.mjs'), agentSession, cwd],
    env: { ...env, LANES_CLI: CLI },
    cwd,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'lanes-test', version: '1.0.0' });
  await client.connect(transport);
  after(() => client.close());
  return { client, stderr: () => err };
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
}

/** The text the model reads. */
export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** lanes' error code of a tool error (null when the call succeeded). */
export function errorCode(r: CallToolResult): string | null {
  if (!r.isError) return null;
  const meta = r._meta?.['lanes/error'] as { code?: string } | undefined;
  return meta?.code ?? null;
}
