import type { Command } from 'commander';

/** Every command of `program` with its path ('create api'; '' for the program itself), parents before children. */
export function commandTree(program: Command): Array<[path: string, command: Command]> {
  const out: Array<[string, Command]> = [];
  const visit = (cmd: Command, path: string): void => {
    out.push([path, cmd]);
    for (const sub of cmd.commands) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return out;
}
