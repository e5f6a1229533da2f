import packageJson from '../../package.json' with { type: 'json' };
import { parseFlagWords, flagSpecsOf } from '../../src/config/flags.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError, unknownEnvironmentWarnings } from '../../src/config/resolve.ts';
import { clientBaseUrl } from '../../src/http/public-origin.ts';
import { singleUserNotice, type SingleUserPod } from '../../src/pods/single-user.ts';
import { ADMIN_COMMANDS, runAdminCommand } from './commands/index.ts';
import { commandHelp, globalHelp, tableOptionsOf, type CommandHelp } from './help.ts';
import { applyHeapPolicy } from './heap.ts';
import { listeningLine } from '../shared/listening-line.ts';
import { loadConfig } from './load-config.ts';
import { startServer } from './server.ts';
import { dataOptions } from './storage.ts';
import { holdTickShape } from './tick-shape.ts';

/** For dist/cli.js, which writes V8's code cache under the flags the start had (runtimes/node/bundle-main.ts). */
export { withStartFlags } from './heap.ts';

const COMMANDS: CommandHelp[] = [{ name: 'start', usage: 'svc start [options]', summary: 'Start the pod server.' }, ...ADMIN_COMMANDS];

const SHUTDOWN_GRACE_MS = 10_000;
const PARENT_CHECK_MS = 500;

/** The `svc token` that mints a new token for the single-user pod; none for memory storage, which forgets the pod on exit. */
function singleUserTokenCommand(config: Config, pod: SingleUserPod): string | null {
  if (config.storage === 'memory') return null;
  return `svc token ${pod.name || '/'} ${dataOptions(config)}`;
}

function fail(message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(1);
}

/**
 * Under npm (`npm start`, `npx svc start`) svc may run below a shell that npm started: npm hands a signal to
 * that shell, which exits without passing it on. The parent going away is then the only sign to stop.
 */
function whenParentExits(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const check = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(check);
    stop();
  }, PARENT_CHECK_MS);
  check.unref();
}

async function runStart(flags: Record<string, unknown>): Promise<void> {
  holdTickShape();
  applyHeapPolicy(process.execArgv, process.env.NODE_OPTIONS);
  const log = (line: string) => process.stdout.write(line + '\n');
  for (const warning of unknownEnvironmentWarnings(process.env)) log(warning);
  const config = await loadConfig(flags, process.env);
  const running = await startServer(config, log);
  const pod = running.singleUserPod;
  if (pod) log(singleUserNotice(pod, clientBaseUrl(config, running.url), singleUserTokenCommand(config, pod), config));
  log(listeningLine('node', running.url, config));

  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: finishing in-flight requests, then exiting.`);
    const force = setTimeout(() => {
      log('in-flight requests did not finish in time; exiting anyway.');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    void running.close().then(() => {
      log('svc stopped: every request answered, quota counts and pending records saved.');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT received'));
  process.on('SIGTERM', () => stop('SIGTERM received'));
  whenParentExits(() => stop('the npm process that started svc has exited'));
}

export async function main(argv: string[]): Promise<void> {
  const words = argv.slice(2);
  const [first, ...rest] = words;
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${packageJson.version}\n`);
    return;
  }
  if (first === undefined || first === '--help' || first === 'help') {
    const topic = first === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    if (first === 'help' && rest[0] !== undefined && !topic) fail(`unknown command "${rest[0]}". Run \`svc help\` for the list of commands.`);
    process.stdout.write((topic ? commandHelp(topic) : globalHelp(COMMANDS)) + '\n');
    // `svc` alone is a mistake a script should notice; asking for help is not.
    process.exit(first === undefined ? 1 : 0);
  }
  if (first.startsWith('-')) fail(`name a command before the options, e.g. svc start ${words.join(' ')}. Run \`svc help\` for the list of commands.`);
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) fail(`unknown command "${first}". Run \`svc help\` for the list of commands.`);
  if (rest.includes('--help')) {
    process.stdout.write(commandHelp(command) + '\n');
    return;
  }

  let parsed;
  try {
    parsed = parseFlagWords(rest, [...flagSpecsOf(tableOptionsOf(command)), ...(command.extraOptions ?? [])]);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    fail(`${error.message}. Run \`svc ${first} --help\` for the options.`);
  }
  if (first === 'start') {
    if (parsed.positionals.length > 0) fail(`unexpected argument "${parsed.positionals[0]}": svc start takes only options. Run \`svc start --help\` for them.`);
    return runStart(parsed.flags);
  }
  process.stdout.write((await runAdminCommand(first, parsed.positionals, parsed.flags, () => loadConfig(parsed.flags, process.env))) + '\n');
}

main(process.argv).catch((error) => {
  if (error instanceof ConfigError) fail(error.message);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
