import * as z from 'zod';
import type { Lanes } from '../index.js';

// One MCP tool: what the model reads (description, input schema), what a program reads
// (structured output and its schema) and the text the model sees. `run` makes one library call.

export interface CallContext {
  /** The library, opened as the session this server serves (see identity.ts). */
  lanes: Lanes;
  session: string;
  /** How the session was found (shown by whoami). */
  how: string;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
}

export interface ToolResult {
  data: Record<string, unknown>;
  text: string;
}

export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodRawShape;
  /** Changes nothing (MCP's readOnlyHint). */
  readOnly: boolean;
  run(call: CallContext, args: z.infer<z.ZodObject<I>>): Promise<ToolResult>;
}

export const defineTool = <I extends z.ZodRawShape>(t: ToolDef<I>): ToolDef<I> => t;

/** The library's records as plain JSON (no undefined, no Buffers, no class instances). */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

// Shared output shapes, loose: a record carries more fields than the schema names.
export const claimShape = z.looseObject({
  kind: z.string(),
  name: z.string(),
  scope: z.string(),
  sessionId: z.string(),
  token: z.number(),
});
export const sessionShape = z.looseObject({
  id: z.string(),
  state: z.enum(['live', 'dead', 'ended']),
  agent: z.string().nullable(),
  ticket: z.string().nullable(),
  label: z.string().nullable(),
  worktree: z.string().nullable(),
  claims: z.array(claimShape),
});
export const holderShape = z.looseObject({
  claim: claimShape,
  state: z.enum(['live', 'dead', 'ended']),
  why: z.string(),
});

export const resourceText = (r: { kind: string; name: string }) => `${r.kind}:${r.name}`;

export const resourcesInput = z
  .array(z.string().min(1))
  .min(1)
  .describe(
    'Resources as kind:name, e.g. "ticket:SEAT-42", "path:src/billing/" (a trailing / covers the directory), "branch:NAME". Paths are relative to your worktree root.',
  );
