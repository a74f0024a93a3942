// The entry for the quick commands (`quick` in registry.ts: `lanes ls`): a bundle of their own
// (dist/quick.cjs) without the rest of the CLI, as hot.ts is for the commands of every tool call.
import { QUICK_COMMANDS } from './registry-quick.js';
import { runCommand } from './runner.js';

export function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  return runCommand(name ?? '', args, { commands: QUICK_COMMANDS });
}
