import { cac } from 'cac';
import { OPTIONS, type OptionSpec } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { ADMIN_COMMANDS, declareAdminCommands, runAdminCommand } from './commands/index.ts';
import { commandHelp, globalHelp, type CommandHelp } from './help.ts';
import { loadConfig } from './load-config.ts';
import { startServer } from './server.ts';
import { mintPodToken } from './token.ts';

const COMMANDS: CommandHelp[] = [
  { name: 'start', usage: 'svc start [options]', summary: 'Start the pod server.' },
  { name: 'token', usage: 'svc token <pod> [options]', summary: 'Print a fresh bearer token for an existing pod.', optionKeys: ['root', 'config', 'storage', 'tokenTtl'] },
  ...ADMIN_COMMANDS,
];

const SHUTDOWN_GRACE_MS = 10_000;

function fail(message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(1);
}

async function runStart(flags: Record<string, unknown>): Promise<void> {
  const config = await loadConfig(flags, process.env);
  const log = (line: string) => process.stdout.write(line + '\n');
  const running = await startServer(config, log);
  const storageText = config.storage === 'fs' ? `files under ${config.root}` : 'memory (lost on exit)';
  log(`svc listening on ${running.url} (storage: ${storageText})`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal} received: finishing in-flight requests, then exiting.`);
    const force = setTimeout(() => {
      log('in-flight requests did not finish in time; exiting anyway.');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

export async function main(argv: string[]): Promise<void> {
  const cli = cac('svc');
  const start = cli.command('start', 'Start the pod server');
  const token = cli.command('token <pod>', 'Print a fresh bearer token for a pod');
  declareAdminCommands(cli);
  for (const spec of OPTIONS as readonly OptionSpec[]) {
    const long = `--${spec.flag}${spec.arg ? ' ' + spec.arg : ''}`;
    start.option(spec.short ? `-${spec.short}, ${long}` : long, spec.help);
    token.option(spec.short ? `-${spec.short}, ${long}` : long, spec.help);
  }
  start.option('--help', 'show help');
  cli.option('--help', 'show help');

  const words = argv.slice(2);
  const commandName = words[0] && !words[0].startsWith('-') ? words[0] : undefined;
  const command = COMMANDS.find((c) => c.name === commandName);
  if (!commandName) {
    process.stdout.write(globalHelp(COMMANDS) + '\n');
    process.exit(words.includes('--help') ? 0 : 1);
  }
  if (!command) fail(`unknown command "${commandName}". Run \`svc --help\` for the list of commands.`);
  if (words.includes('--help')) {
    process.stdout.write(commandHelp(command) + '\n');
    return;
  }

  let parsed;
  try {
    parsed = cli.parse(argv, { run: false });
    cli.matchedCommand?.checkUnknownOptions();
  } catch (error) {
    fail(`${(error as Error).message}. Run \`svc ${commandName} --help\` for the options.`);
  }
  const flags: Record<string, unknown> = {};
  for (const spec of OPTIONS as readonly OptionSpec[]) {
    const value = parsed.options[spec.key];
    if (value !== undefined) flags[spec.key] = Array.isArray(value) ? value.at(-1) : value;
  }
  if (commandName === 'start') await runStart(flags);
  if (commandName === 'token') {
    if (!parsed.args[0]) fail('name the pod: svc token <pod>.');
    process.stdout.write((await mintPodToken(await loadConfig(flags, process.env), String(parsed.args[0]))) + '\n');
  }
  const adminOutput = await runAdminCommand(commandName, parsed.args, parsed.options, () => loadConfig(flags, process.env));
  if (adminOutput !== null) process.stdout.write(adminOutput + '\n');
}

main(process.argv).catch((error) => {
  if (error instanceof ConfigError) fail(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`the port is already in use: ${(error as Error).message}`);
  if (code === 'EACCES') fail(`permission denied: ${(error as Error).message}`);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
