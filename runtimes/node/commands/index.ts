import type { CAC } from 'cac';
import { OPTIONS, type Config, type OptionSpec } from '../../../src/config/options.ts';
import { optionFlags, type CommandHelp } from '../help.ts';
import { DEFAULT_CONFIG_FILE, initCommand } from './init.ts';
import { inviteCommand } from './invite.ts';
import { quotaCommand } from './quota.ts';

const STORAGE_KEYS = ['root', 'config', 'storage'] as const;

/** The administration commands, for the command list and `--help`. */
export const ADMIN_COMMANDS: CommandHelp[] = [
  { name: 'init', usage: 'svc init [-c <file>]', summary: `Ask for the main options and write a config file (default ${DEFAULT_CONFIG_FILE}).`, optionKeys: ['config'] },
  {
    name: 'invite',
    usage: 'svc invite create [-u <n>] [-n <text>] | svc invite list | svc invite revoke <code>',
    summary: 'Create, list and revoke invite codes (stored in .server/invites.json under the data directory).',
    optionKeys: STORAGE_KEYS,
    extraOptions: [
      { flags: '-u, --uses <n>', help: 'how many pods the code may create (default 1)' },
      { flags: '-n, --note <text>', help: 'a note kept with the code' },
    ],
  },
  {
    name: 'quota',
    usage: 'svc quota set <pod> <size> | svc quota show <pod> | svc quota reconcile <pod>',
    summary: "Set, show or recompute a pod's storage quota (.quota.json at the pod root).",
    optionKeys: [...STORAGE_KEYS, 'defaultQuota'],
  },
];

const SIGNATURES: Record<string, string> = { init: 'init', invite: 'invite <action> [code]', quota: 'quota <action> <pod> [size]' };

/** Declares the commands with their arguments and the options each takes. */
export function declareAdminCommands(cli: CAC): void {
  for (const help of ADMIN_COMMANDS) {
    const command = cli.command(SIGNATURES[help.name]!, help.summary);
    for (const spec of OPTIONS as readonly OptionSpec[]) {
      if (help.optionKeys?.includes(spec.key)) command.option(optionFlags(spec).trim(), spec.help);
    }
    for (const extra of help.extraOptions ?? []) command.option(extra.flags, extra.help);
  }
}

/** Runs an administration command; returns its output, or null when the name is not one of them. */
export async function runAdminCommand(
  name: string,
  args: readonly unknown[],
  options: Record<string, unknown>,
  loadConfig: () => Promise<Config>,
): Promise<string | null> {
  const words = args.map(String);
  if (name === 'init') {
    const file = (options.config as string | undefined) ?? DEFAULT_CONFIG_FILE;
    return initCommand(file, { input: process.stdin, write: (text) => process.stdout.write(text) });
  }
  if (name === 'invite') return inviteCommand(await loadConfig(), words, { uses: options.uses, note: options.note });
  if (name === 'quota') return quotaCommand(await loadConfig(), words);
  return null;
}
