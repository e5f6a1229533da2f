import type { Config } from '../../../src/config/options.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import type { CommandHelp } from '../help.ts';

/** Where `svc init` writes, unless -c names another file. */
const DEFAULT_CONFIG_FILE = 'svc.config.json';

/** Where the data of a server is: its --root or S3 bucket, or the config file naming them. */
const DATA_KEYS = ['root', 'config', 'storage', 's3Endpoint', 's3Bucket', 's3Region', 's3Prefix', 's3ForcePathStyle', 's3Timeout'] as const;

/** The administration commands, for the command list, the options each takes and `--help`. */
export const ADMIN_COMMANDS: CommandHelp[] = [
  {
    name: 'token',
    usage: 'svc token <pod> [options]',
    summary: 'Print a fresh bearer token for an existing pod (/: the single-user pod at the root).',
    optionKeys: [...DATA_KEYS, 'tokenTtl'],
  },
  { name: 'init', usage: 'svc init [-c <file>]', summary: `Ask for the main options and write a config file (default ${DEFAULT_CONFIG_FILE}).`, optionKeys: ['config'] },
  {
    name: 'invite',
    usage: 'svc invite create [-u <n>] [-n <text>] | svc invite list | svc invite revoke <code>',
    summary: 'Create, list and revoke invite codes (stored in .server/invites.json under the data directory).',
    optionKeys: DATA_KEYS,
    extraOptions: [
      { key: 'uses', flag: 'uses', short: 'u', arg: '<n>', help: 'how many pods the code may create (default 1)' },
      { key: 'note', flag: 'note', short: 'n', arg: '<text>', help: 'a note kept with the code' },
    ],
  },
  {
    name: 'copy',
    usage: 'svc copy --to <config file> [options]',
    summary: "Copy a stopped server's data (its --root or bucket) into an empty directory or bucket named by a config file, e.g. to move from fs to S3 and back.",
    optionKeys: DATA_KEYS,
    extraOptions: [{ key: 'to', flag: 'to', arg: '<file>', help: 'config file naming the target ("root", or "storage": "s3" with the "s3*" keys); credentials from AWS_*' }],
  },
  {
    name: 'quota',
    usage: 'svc quota set <pod> <size> | svc quota show <pod> | svc quota reconcile <pod>',
    summary: "Set, show or recompute a pod's storage quota (.quota.json at the pod root; / is the single-user pod at the root).",
    optionKeys: [...DATA_KEYS, 'defaultQuota', 'docdb', 'docdbUrl', 'docdbDatabase'],
  },
];

/** Runs an administration command, loading its code (no start loads any); returns its standard output. */
export async function runAdminCommand(
  name: string,
  args: readonly string[],
  flags: Record<string, unknown>,
  loadConfig: () => Promise<Config>,
): Promise<string> {
  if (name === 'token') {
    if (!args[0]) throw new ConfigError('name the pod: svc token <pod>.');
    return (await import('../token.ts')).mintPodToken(await loadConfig(), args[0]);
  }
  if (name === 'init') {
    const file = (flags.config as string | undefined) ?? DEFAULT_CONFIG_FILE;
    return (await import('./init.ts')).initCommand(file, { input: process.stdin, write: (text) => process.stdout.write(text) });
  }
  if (name === 'copy') return (await import('./copy.ts')).copyCommand(await loadConfig(), flags.to, process.env, (line) => process.stderr.write(line + '\n'));
  if (name === 'invite') return (await import('./invite.ts')).inviteCommand(await loadConfig(), args, { uses: flags.uses, note: flags.note, details: (line) => process.stderr.write(line + '\n') });
  return (await import('./quota.ts')).quotaCommand(await loadConfig(), args);
}
