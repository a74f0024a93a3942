import { EXIT } from '../../core/errors.js';
import type { CommandSpec } from '../command.js';
import { usageError } from '../command.js';

const POSIX = `# lanes shell integration (lanes shell-init): \`lanes new --cd\` and \`lanes start --worktree --cd\`
# leave this shell in the new worktree. Everything else runs as \`command lanes\` would.
lanes() {
  local __lanes_cd __lanes_rc
  __lanes_cd="$(mktemp "\${TMPDIR:-/tmp}/lanes-cd.XXXXXX")" || { command lanes "$@"; return; }
  LANES_CD_FILE="$__lanes_cd" command lanes "$@"
  __lanes_rc=$?
  if [ -s "$__lanes_cd" ]; then builtin cd -- "$(cat -- "$__lanes_cd")" || true; fi
  rm -f -- "$__lanes_cd"
  return $__lanes_rc
}
`;

const FISH = `# lanes shell integration (lanes shell-init fish): \`lanes new --cd\` and \`lanes start --worktree --cd\`
# leave this shell in the new worktree. Everything else runs as \`command lanes\` would.
function lanes --wraps lanes --description 'lanes, leaving the shell in the worktree --cd asks for'
    set -l dir /tmp
    set -q TMPDIR; and set dir $TMPDIR
    set -l f (mktemp $dir/lanes-cd.XXXXXX); or begin
        command lanes $argv
        return
    end
    LANES_CD_FILE=$f command lanes $argv
    set -l rc $status
    if test -s $f
        builtin cd (cat $f)
    end
    rm -f $f
    return $rc
end
`;

export const command: CommandSpec = {
  name: 'shell-init',
  summary: 'Print the shell function that lets `lanes new --cd` and `start --worktree --cd` leave you in the worktree.',
  usage: 'shell-init bash|zsh|fish',
  description: [
    "A program cannot change its shell's directory; this function can. Add it to your shell:",
    '  bash: eval "$(lanes shell-init bash)"   in ~/.bashrc',
    '  zsh:  eval "$(lanes shell-init zsh)"    in ~/.zshrc',
    '  fish: lanes shell-init fish | source    in ~/.config/fish/config.fish',
    'Then `lanes new TICKET --cd …` and `lanes start --worktree --cd` leave the shell in the new worktree.',
  ].join('\n'),
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['eval "$(lanes shell-init bash)"'],
  async run(args, io) {
    const shell = args.positionals[0];
    if (shell === 'bash' || shell === 'zsh') io.stdout(POSIX);
    else if (shell === 'fish') io.stdout(FISH);
    else throw usageError(this, `unknown shell ${JSON.stringify(shell)} (expected bash, zsh or fish)`);
    return EXIT.ok;
  },
};
