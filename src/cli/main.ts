// The entry of dist/main.cjs: every command but the hot ones, --help and --version. Each command
// (and the store's native module) is imported when it is actually used.
import { EXIT } from '../core/errors.js';
import { runCommand } from './runner.js';
import { pipeSafeStdout } from './stdout.js';
import { VERSION } from './version.js';

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const out = (t: string) => {
    const stdout = pipeSafeStdout();
    stdout.write(t);
    stdout.dispose();
  };
  // `lanes help CMD` is `lanes CMD --help`.
  if (name === 'help' && args[0] !== undefined && !args[0].startsWith('-')) return runCommand(args[0], ['--help']);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const { overview } = await import('./help.js');
    out(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    out(`lanes ${VERSION}\n`);
    return EXIT.ok;
  }
  return runCommand(name, args);
}
