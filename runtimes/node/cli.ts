import { cac } from 'cac';
import { OPTIONS, type Config, type OptionSpec } from '../../src/config/options.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { singleUserNotice, type SingleUserPod } from '../../src/pods/single-user.ts';
import { ADMIN_COMMANDS, declareAdminCommands, runAdminCommand } from './commands/index.ts';
import { commandHelp, globalHelp, type CommandHelp } from './help.ts';
import { loadConfig } from './load-config.ts';
import { startServer } from './server.ts';
import { mintPodToken } from './token.ts';

const COMMANDS: CommandHelp[] = [
  { name: 'start', usage: 'svc start [options]', summary: 'Start the pod server.' },
  { name: 'token', usage: 'svc token <pod> [options]', summary: 'Print a fresh bearer token for an existing pod (/: the single-user pod at the root).', optionKeys: ['root', 'config', 'storage', 'tokenTtl'] },
  ...ADMIN_COMMANDS,
];

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * cac (mri) reads an empty value, `--name ''` or `--name=`, as 0 or true; for string options the last
 * value given wins, so an empty one is taken back from the raw words.
 */
function emptyStringFlags(words: readonly string[]): Record<string, string> {
  const empty: Record<string, string> = {};
  for (const spec of OPTIONS as readonly OptionSpec[]) {
    if (spec.kind !== 'string') continue;
    let last: string | undefined;
    words.forEach((word, index) => {
      if (word === `--${spec.flag}`) last = words[index + 1];
      else if (word.startsWith(`--${spec.flag}=`)) last = word.slice(spec.flag.length + 3);
    });
    if (last === '') empty[spec.key] = '';
  }
  return empty;
}

/** The `svc token` that mints a new token for the single-user pod; none for memory storage, which forgets the pod on exit. */
function singleUserTokenCommand(config: Config, pod: SingleUserPod): string | null {
  if (config.storage === 'memory') return null;
  return `svc token ${pod.name || '/'} ${config.config ? `-c ${config.config}` : `-r ${config.root}`}`;
}

function fail(message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(1);
}

async function runStart(flags: Record<string, unknown>): Promise<void> {
  const config = await loadConfig(flags, process.env);
  const log = (line: string) => process.stdout.write(line + '\n');
  const running = await startServer(config, log);
  const storageText = config.storage === 'fs' ? `files under ${config.root}` : 'memory (lost on exit)';
  const pod = running.singleUserPod;
  if (pod) log(singleUserNotice(pod, running.url, singleUserTokenCommand(config, pod)));
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
  Object.assign(flags, emptyStringFlags(words));
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
