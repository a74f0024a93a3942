// The entry for the commands that run inside every agent tool call or wrap every command
// (`lanes hook`, `lanes exec`: `hot` in registry.ts): its own small bundle (dist/hot.cjs), so
// these do not compile the whole CLI on each start. bench/hook.mjs and bench/runtime.mjs measure
// it against a bare node.
import { HOT_COMMANDS } from './registry-hot.js';
import { runCommand } from './runner.js';

export function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  return runCommand(name ?? '', args, { commands: HOT_COMMANDS });
}
