/**
 * Starts each runtime as a real process on a free loopback port, with the options of the portable suite,
 * and stops it (its whole process group) afterwards. Deno and Bun come from .runtimes/ (installed by
 * scripts/install-runtimes.sh, which `npm run test:runtimes` runs first).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestS3 } from '../support/s3.ts';
import { SVC_BIN } from '../support/server.ts';
import { PORTABLE_OPTIONS, type RunningTarget } from './suite.ts';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');
const EXTRA_RUNTIMES_BIN = join(REPO, '.runtimes', 'node_modules', '.bin');
const STARTUP_TIMEOUT_MS = 90_000;
/** The line `svc start` and the Deno and Bun entry points print once they listen. */
const SVC_LISTENING = /svc listening on (https?:\/\/\S+)/;

/** The test process's environment without `SVC_*` options, so a developer's shell cannot change what is tested. */
function cleanEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_'))), ...extra };
}

/** `svc start` (bin/svc.js) with a fresh data directory, on the Node running the tests or on one of .runtimes/. */
export async function startNode(node: string = process.execPath, options: Readonly<Record<string, string>> = PORTABLE_OPTIONS): Promise<RunningTarget> {
  const root = await mkdtemp(join(tmpdir(), 'svc-node-'));
  return startProcess(node, [SVC_BIN, 'start', '-p', '0', '-h', '127.0.0.1', '-r', root], { ...options }, SVC_LISTENING, root);
}

/**
 * A server on `--storage s3`: an S3-protocol server (test/support/s3.ts) is started first, with a bucket for
 * this run, and stopped after the server. `start` gets the S3 flags and the environment with the credentials.
 */
async function onTestS3(start: (args: string[], env: Record<string, string>) => Promise<RunningTarget>): Promise<RunningTarget> {
  const s3 = await startTestS3();
  let target: RunningTarget;
  try {
    target = await start(s3.args(), s3.env);
  } catch (error) {
    await s3.stop();
    throw error;
  }
  return {
    ...target,
    async stop() {
      await target.stop();
      await s3.stop();
    },
  };
}

/** `svc start` on Node with `--storage s3`. */
export async function startNodeOnS3(): Promise<RunningTarget> {
  const scratch = await mkdtemp(join(tmpdir(), 'svc-node-s3-'));
  return onTestS3((args, env) => startProcess(process.execPath, [SVC_BIN, 'start', '-p', '0', '-h', '127.0.0.1', ...args], { ...PORTABLE_OPTIONS, ...env }, SVC_LISTENING, scratch));
}

/** The Deno or Bun entry point with `--storage s3`. */
export const startExtraRuntimeOnS3 = (runtime: ExtraRuntime) => onTestS3((args, env) => startExtraRuntime(runtime, args, { ...PORTABLE_OPTIONS, ...env }));

/**
 * `svc start` in subdomain mode on base domain `localhost`: pods answer at `<name>.localhost:<port>`, and the
 * base URL is `http://localhost:<port>` (the suite reaches those names with test/support/localhost-hosts.ts).
 */
export async function startNodeSubdomains(): Promise<RunningTarget> {
  const root = await mkdtemp(join(tmpdir(), 'svc-subdomains-'));
  const env = { ...PORTABLE_OPTIONS, SVC_SUBDOMAINS: 'true', SVC_BASE_DOMAIN: 'localhost' };
  const target = await startProcess(process.execPath, [SVC_BIN, 'start', '-p', '0', '-h', '127.0.0.1', '-r', root], env, SVC_LISTENING, root);
  return { ...target, base: target.base.replace('//127.0.0.1:', '//localhost:') };
}

/** The other Node versions in .runtimes/: the LTS lines, and one below svc's floor. */
export type NodeLine = 'node22' | 'node24' | 'node-below-floor';

export function nodeBinary(line: NodeLine): string {
  const bin = join(REPO, '.runtimes', 'node_modules', line, 'bin', 'node');
  if (!existsSync(bin)) throw new Error(`${line} is not installed in .runtimes/: run \`npm run test:runtimes\` (or scripts/install-runtimes.sh).`);
  return bin;
}

/** Spawns a server in its own process group and waits until its output names the URL it listens on. */
async function startProcess(command: string, args: string[], env: Record<string, string>, listening: RegExp, scratch: string): Promise<RunningTarget> {
  const child = spawn(command, args, { cwd: REPO, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listened = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start listening:\n${output}`)), STARTUP_TIMEOUT_MS);
    const collect = (chunk: Buffer) => {
      output += chunk;
      const match = listening.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!.replace(/\/$/, ''));
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('error', reject);
    void exited.then(() => reject(new Error(`${command} exited before listening:\n${output}`)));
  });
  const stopGroup = () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
  };
  let base: string;
  try {
    base = await listened;
  } catch (error) {
    stopGroup();
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  return {
    base,
    output: () => output,
    async stop() {
      stopGroup();
      await exited;
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

export type ExtraRuntime = 'deno' | 'bun';

function extraRuntime(name: ExtraRuntime): string {
  const bin = join(EXTRA_RUNTIMES_BIN, name);
  if (!existsSync(bin)) throw new Error(`${name} is not installed in .runtimes/: run \`npm run test:runtimes\` (or scripts/install-runtimes.sh).`);
  return bin;
}

/** The command line that runs the Deno or Bun entry point with svc options. */
function entryArgs(runtime: ExtraRuntime, options: string[]): string[] {
  if (runtime === 'bun') return ['run', 'runtimes/bun/main.ts', ...options];
  // Git runs as a child process: Deno allows that only with --allow-run.
  const permissions = ['--allow-net', '--allow-env', '--allow-read', '--allow-write', '--allow-sys', ...(options.includes('--git') ? ['--allow-run'] : [])];
  return ['run', '--no-lock', ...permissions, 'runtimes/deno/main.ts', ...options];
}

/**
 * Starts the Deno or Bun entry point on a free loopback port with a fresh data directory, or on the one
 * `options` name with `-r`, which then outlives the process.
 */
export async function startExtraRuntime(runtime: ExtraRuntime, options: string[] = [], env: Readonly<Record<string, string>> = PORTABLE_OPTIONS): Promise<RunningTarget & { root: string }> {
  const scratch = await mkdtemp(join(tmpdir(), `svc-${runtime}-`));
  const given = options.findIndex((word) => word === '-r' || word === '--root');
  const root = given === -1 ? scratch : options[given + 1]!;
  const args = entryArgs(runtime, ['-p', '0', '-h', '127.0.0.1', ...(given === -1 ? ['-r', root] : []), ...options]);
  return { ...(await startProcess(extraRuntime(runtime), args, { ...env, NO_COLOR: '1' }, SVC_LISTENING, scratch)), root };
}

/** Runs the Deno or Bun entry point expecting it to stop by itself (a refused option); gives its exit code and output. */
export async function runExtraRuntime(runtime: ExtraRuntime, options: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(extraRuntime(runtime), entryArgs(runtime, options), { cwd: REPO, env: cleanEnv({ ...env, NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

/** Runs a script of the repository (not the entry point) with Deno or Bun; gives its exit code and output. */
export async function runScriptOnExtraRuntime(runtime: ExtraRuntime, script: string): Promise<{ code: number | null; output: string }> {
  const args = runtime === 'bun' ? ['run', script] : ['run', '--no-lock', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', script];
  const child = spawn(extraRuntime(runtime), args, { cwd: REPO, env: cleanEnv({ NO_COLOR: '1' }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

export const startDeno = () => startExtraRuntime('deno');
export const startBun = () => startExtraRuntime('bun');

const WRANGLER = join(REPO, 'node_modules', '.bin', 'wrangler');
const WRANGLER_ENV = { CI: '1', WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' };

/**
 * `wrangler dev` (local workerd, a local R2 bucket in a fresh folder) on the bundle `wrangler deploy` would
 * upload, built first with `--dry-run`, under the repository's wrangler.toml with only `main` pointed at that
 * bundle. `wrangler dev` on the sources would restart the Worker mid-test whenever a source file changes.
 */
export async function startWorkers(options: Readonly<Record<string, string>> = PORTABLE_OPTIONS): Promise<RunningTarget> {
  const scratch = await mkdtemp(join(tmpdir(), 'svc-wrangler-'));
  try {
    await run(WRANGLER, ['deploy', '--dry-run', '--outdir', join(scratch, 'dist'), '--config', 'wrangler.toml'], { cwd: REPO, env: cleanEnv(WRANGLER_ENV) });
    const config = (await readFile(join(REPO, 'wrangler.toml'), 'utf8')).replace(/^main = .*$/m, 'main = "dist/index.js"');
    await writeFile(join(scratch, 'wrangler.toml'), config);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  const vars = Object.entries(options).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  const args = ['dev', '--config', join(scratch, 'wrangler.toml'), '--no-bundle', '--ip', '127.0.0.1', '--port', '0', '--inspector-port', '0', '--persist-to', join(scratch, 'state'), '--show-interactive-dev-session=false', ...vars];
  return startProcess(WRANGLER, args, WRANGLER_ENV, /Ready on (http:\/\/127\.0\.0\.1:\d+)/, scratch);
}
