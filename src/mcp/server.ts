// `lanes mcp`: a Model Context Protocol server over stdio, so an agent can ask lanes directly
// instead of through a shell. Each tool translates one call to one call of the library object
// (openLanes()) and the result back; it acts as the session of the agent that started the server
// (identity.ts). Built into its own bundle (dist/mcp.cjs): the SDK stays out of the other commands.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LineTransport } from './line-transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { OutageWatch, isLanesError, isOutage, openLanes } from '../index.js';
import type { LanesOptions } from '../index.js';
import { identityOfAgent } from './identity.js';
import { McpHandles } from './handles.js';
import type { Identity } from './identity.js';
import type { ToolDef } from './tool.js';
import { check, claim, claims, release, sessions, whoami } from './tools-claims.js';
import { commit, conflicts, handoffGet, handoffPut, ready, snapshot } from './tools-work.js';
import { journal } from './tools-journal.js';

export const TOOLS: ToolDef[] = [
  whoami,
  sessions,
  claim,
  release,
  check,
  claims,
  conflicts,
  handoffPut,
  handoffGet,
  commit,
  snapshot,
  ready,
  journal,
] as unknown as ToolDef[];

export interface ServeOptions {
  agent: string | null;
  version: string;
  store?: string;
}

/**
 * A lanes error as a tool error the model can act on: the code, the reason and the fix in the
 * text, and the same under _meta["lanes/error"] for programs (a tool error carries no structured
 * content: clients check that against the tool's output schema).
 */
/**
 * The fix in the model's terms where it is a tool call ("call claim again with waitSeconds: 60"),
 * not the shell command the CLI would suggest; other hints as lanes gives them.
 */
function toolHint(tool: string | undefined, code: string, hint: string | null): string | null {
  if (tool === 'claim' && code === 'E_CLAIM_HELD')
    return 'ask the holder to release it (its tool release), call claim again with waitSeconds: 60 to wait for it, or work on something else; nothing was claimed';
  if (tool === 'claim' && (code === 'E_TIMEOUT' || code === 'E_ABORTED'))
    return 'call claim again with a longer waitSeconds, or work on something else; nothing was claimed';
  if (tool === 'claim' && code === 'E_DEADLOCK')
    return 'release what you hold that the other session waits for (tool release), then call claim again; nothing was claimed';
  if (tool === 'commit' && code === 'E_CLAIM_HELD')
    return 'call commit again with only your own paths, or ask the holder to release them; nothing was committed';
  return hint;
}

export function toolError(e: unknown, tool?: string): CallToolResult {
  const error = isLanesError(e)
    ? { code: e.code, message: e.message, hint: toolHint(tool, e.code, e.hint ?? null), details: e.details }
    : { code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e), hint: null, details: {} };
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}${error.hint ? `\nfix: ${error.hint}` : ''}` }],
    _meta: { 'lanes/error': JSON.parse(JSON.stringify(error)) as Record<string, unknown> },
  };
}

export function buildServer(
  options: ServeOptions,
  me: Identity,
  handles = new McpHandles(baseOf(options), me),
): McpServer {
  const server = new McpServer({ name: 'lanes', version: options.version });
  const outage = new OutageWatch((m) => process.stderr.write(`${m}\n`), 'lanes mcp');
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: z.looseObject(tool.output),
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
        try {
          const { lanes, session, how } = await handles.forCall();
          const r = await tool.run({ lanes, session, how, signal: extra.signal }, args as never);
          await handles.acted();
          outage.up();
          return { content: [{ type: 'text', text: r.text }], structuredContent: r.data };
        } catch (e) {
          // The call fails with the store's error (the agent decides); the server stays up, opens
          // the store again on the next call, and tells the outage on stderr once when it starts
          // and once when it ends.
          if (isOutage(e)) {
            outage.failed(e);
            await handles.reset();
          }
          return toolError(e, tool.name);
        }
      },
    );
  }
  return server;
}

const baseOf = (options: ServeOptions): LanesOptions => ({
  notice: false,
  ...(options.store ? { store: options.store } : {}),
});

/** Serves on stdin/stdout until the client closes the connection. */
export async function serveMcp(options: ServeOptions): Promise<void> {
  const me = identityOfAgent(options.agent, process.env);
  const handles = new McpHandles(baseOf(options), me);
  const server = buildServer(options, me, handles);
  const transport = new LineTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.close().catch(() => undefined);
  await handles.reset();
  await endRegistered(options, me);
}

/**
 * A session this server registered for itself ends with the connection, through the one end path
 * (its worktree's work snapshotted first): none piles up dead, holding claims.
 */
async function endRegistered(options: ServeOptions, me: Identity): Promise<void> {
  if (!me.registered) return;
  const lanes = await openLanes({ notice: false, session: null, ...(options.store ? { store: options.store } : {}) });
  try {
    const s = await lanes.sessions.get(me.registered);
    if (s.state !== 'ended') await lanes.sessions.end(me.registered, { reason: 'lanes mcp: the client disconnected' });
  } catch (e) {
    process.stderr.write(
      `lanes mcp: session ${me.registered} was not ended (${e instanceof Error ? e.message : String(e)}): end it with \`lanes end ${me.registered}\`\n`,
    );
  } finally {
    await lanes.close({ heartbeat: false }).catch(() => undefined);
  }
}
