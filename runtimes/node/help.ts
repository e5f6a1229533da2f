import type { FlagSpec } from '../../src/config/flags.ts';
import { envNameOf, OPTIONS, type OptionSpec } from '../../src/config/options.ts';

export interface CommandHelp {
  name: string;
  usage: string;
  summary: string;
  /** Keys of the options table this command takes; undefined means all of them. */
  optionKeys?: readonly string[];
  /** Options of this command alone, outside the options table. */
  extraOptions?: readonly (FlagSpec & { help: string })[];
}

/** The options of the table a command takes. */
export function tableOptionsOf(command: CommandHelp): OptionSpec[] {
  return (OPTIONS as readonly OptionSpec[]).filter((o) => !command.optionKeys || command.optionKeys.includes(o.key));
}

function optionFlags(spec: { flag: string; short?: string; arg?: string }): string {
  const long = `--${spec.flag}${spec.arg ? ' ' + spec.arg : ''}`;
  return spec.short ? `-${spec.short}, ${long}` : `    ${long}`;
}

function optionLine(spec: OptionSpec): string {
  const defaultText = spec.default === undefined || spec.default === false ? '' : ` (default: ${JSON.stringify(spec.default)})`;
  return `  ${optionFlags(spec).padEnd(34)} ${spec.help}${defaultText}\n  ${''.padEnd(34)} env ${envNameOf(spec)}, config key "${spec.key}"`;
}

export function commandHelp(command: CommandHelp): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary, '', 'Options:'];
  for (const spec of tableOptionsOf(command)) lines.push(optionLine(spec));
  for (const extra of command.extraOptions ?? []) lines.push(`  ${optionFlags(extra).padEnd(34)} ${extra.help}`);
  lines.push(`  ${'    --help'.padEnd(34)} show this help`);
  lines.push('', 'Precedence: command-line flag > SVC_* environment variable > config file (-c) > default.');
  lines.push('Each option goes once; one that takes a value needs it (--flag=<value> for a value starting with "-").');
  lines.push('Sizes take B, KB, MB, GB or TB (binary: 1 KB = 1024 B). Booleans from the environment: true/false/1/0.');
  return lines.join('\n');
}

export function globalHelp(commands: readonly CommandHelp[]): string {
  const lines = ['Usage: svc <command> [options]', '', 'A Solid / Linked-Data pod server.', '', 'Commands:'];
  for (const command of commands) lines.push(`  ${command.name.padEnd(10)} ${command.summary}`);
  lines.push(`  ${'help'.padEnd(10)} This help; svc help <command> (or svc <command> --help): the options of a command.`);
  lines.push('', 'svc --version prints the version.', '');
  lines.push(commandHelp(commands[0]!).split('\n').slice(2).join('\n'));
  return lines.join('\n');
}
