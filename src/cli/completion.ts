import { InvalidArgumentError, type Command } from 'commander';
import { commandTree } from './tree.js';

// `scaffold completion bash|zsh|fish`: shell completion of the commands and flags, written from the commander
// definitions so that it cannot drift from them. Both bins, scaffold and kubescaffold, complete.

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];
const BINS = ['scaffold', 'kubescaffold'];

interface CommandSpec {
  /** 'create api'; '' for the program itself. */
  path: string;
  subcommands: string[];
  /** --long and -s forms, --help included. */
  flags: string[];
}

function specsOf(program: Command): CommandSpec[] {
  return commandTree(program).map(([path, cmd]) => {
    const flags = cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => Boolean(f));
    return { path, subcommands: cmd.commands.map((c) => c.name()), flags: [...new Set([...flags, '--help'])] };
  });
}

/** A bash script; zsh runs the same through bashcompinit. Plain `case` lists, so bash 3.2 runs it too. */
function bashScript(specs: CommandSpec[]): string {
  const cases = (pick: (s: CommandSpec) => string[]): string =>
    specs
      .filter((s) => pick(s).length > 0)
      .map((s) => `    "${s.path}") echo "${pick(s).join(' ')}" ;;`)
      .join('\n');
  return `_scaffold_subcommands() {
  case "$1" in
${cases((s) => s.subcommands)}
  esac
}
_scaffold_flags() {
  case "$1" in
${cases((s) => s.flags)}
  esac
}
_scaffold_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case "$word" in -*) continue ;; esac
    case " $(_scaffold_subcommands "$path") " in *" $word "*) path="\${path:+$path }$word" ;; esac
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_scaffold_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_scaffold_subcommands "$path")" -- "$cur"))
  fi
}
complete -o default -F _scaffold_complete ${BINS.join(' ')}
`;
}

function fishScript(specs: CommandSpec[]): string {
  const lines: string[] = [];
  for (const bin of BINS) {
    for (const s of specs) {
      const words = s.path === '' ? [] : s.path.split(' ');
      // Inside this command (all its words seen) and not yet in one of its subcommands.
      const inside =
        words.length === 0
          ? '__fish_use_subcommand'
          : words.map((w) => `__fish_seen_subcommand_from ${w}`).join('; and ');
      const notDeeper =
        s.subcommands.length > 0 && words.length > 0
          ? `; and not __fish_seen_subcommand_from ${s.subcommands.join(' ')}`
          : '';
      const when = `'${inside}${notDeeper}'`;
      if (s.subcommands.length > 0) lines.push(`complete -c ${bin} -f -n ${when} -a '${s.subcommands.join(' ')}'`);
      for (const f of s.flags)
        lines.push(`complete -c ${bin} -n ${when} ${f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script for `shell`, from the commands and flags of `program`. */
export function completionScript(shell: Shell, program: Command): string {
  const specs = specsOf(program);
  switch (shell) {
    case 'bash':
      return `# scaffold completion for bash: source <(npx scaffold completion bash), or save it in ~/.local/share/bash-completion/completions/scaffold\n${bashScript(specs)}`;
    case 'zsh':
      return `# scaffold completion for zsh: source <(npx scaffold completion zsh) in ~/.zshrc, after compinit\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(specs)}`;
    case 'fish':
      return `# scaffold completion for fish: npx scaffold completion fish > ~/.config/fish/completions/scaffold.fish\n${fishScript(specs)}`;
  }
}

/** `scaffold completion <shell>`. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script for scaffold and kubescaffold: bash, zsh or fish')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`, (value: string) => {
      if (!(SHELLS as readonly string[]).includes(value))
        throw new InvalidArgumentError(`unknown shell "${value}"; use one of ${SHELLS.join(', ')}`);
      return value as Shell;
    })
    .action((shell: Shell) => {
      process.stdout.write(completionScript(shell, program));
    });
}
