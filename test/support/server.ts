import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SVC_BIN = join(import.meta.dirname, '..', '..', 'bin', 'svc.js');

export interface RunningSvc {
  /** Base URL on 127.0.0.1 without a trailing slash. */
  base: string;
  root: string;
  process: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `svc start` as a real process on a free loopback port (or the test's own `-p`) with a fresh data
 * directory, or with `root`, which then outlives the process. Rate limits are off (SVC_RATE_LIMIT=false)
 * unless the test passes `--rate-limit` or its own SVC_RATE_LIMIT.
 */
export async function startSvc(args: string[] = [], env: Record<string, string> = {}, options: { root?: string } = {}): Promise<RunningSvc> {
  const givenRoot = args.findIndex((word) => word === '-r' || word === '--root');
  const root = options.root ?? (givenRoot === -1 ? await mkdtemp(join(tmpdir(), 'svc-e2e-')) : args[givenRoot + 1]!);
  // Each option goes once on the command line: the test's own --port, --root or --host replaces the default.
  const givenHost = args.some((word) => word === '-h' || word === '--host');
  const givenPort = args.some((word) => word === '-p' || word === '--port');
  const child = spawn(process.execPath, [SVC_BIN, 'start', ...(givenPort ? [] : ['-p', '0']), ...(givenHost ? [] : ['-h', '127.0.0.1']), ...(givenRoot === -1 ? ['-r', root] : []), ...args], {
    env: { ...process.env, SVC_RATE_LIMIT: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc did not start:\n${output}`)), 20_000);
    const check = () => {
      const match = /svc listening on (https?:\/\/[^\s/]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error(`svc exited before listening:\n${output}`)));
  });
  return {
    base,
    root,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (givenRoot === -1 && !options.root) await rm(root, { recursive: true, force: true });
      return code;
    },
  };
}

/**
 * Runs `svc` with arguments to completion and returns its exit code and output. One that does not end within
 * 25 s (a server that started where the test expected a refusal) is stopped, so no process outlives the test.
 */
export async function runSvc(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 25_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

/** Creates a pod per name on a running server (`POST /.pods`) and returns each owner's token by name. */
export async function createPods(base: string, names: readonly string[]): Promise<Record<string, string>> {
  const tokens: Record<string, string> = {};
  for (const name of names) {
    const made = await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    if (made.status !== 201) throw new Error(`pod ${name}: ${made.status} ${await made.text()}`);
    tokens[name] = ((await made.json()) as { token: string }).token;
  }
  return tokens;
}
