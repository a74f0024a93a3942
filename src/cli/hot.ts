// The entry for the commands that run inside every agent tool call or wrap every command
// (`lanes hook`, `lanes exec`): its own small bundle (dist/hot.cjs), so these do not compile the
// whole CLI on each start. bench/hook.mjs and bench/runtime.mjs measure it against a bare node.
import { runCommand } from './runner.js';
import type { Loader } from './runner.js';

export const HOT_COMMANDS: Record<string, Loader> = {
  hook: () => import('./commands/hook.js'),
  exec: () => import('./commands/exec.js'),
};

export function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  return runCommand(name ?? '', args, HOT_COMMANDS);
}
