/**
 * The servers under test: each is started as a real process on a loopback port with a fresh data directory,
 * timed from spawn to its first `200`, and given one owner whose token the workloads send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CSS_BIN, JSS_BIN } from './peers.ts';

const ROOT = join(import.meta.dirname, '..');

export interface Owner {
  /** The pod's root URL, ending in `/`. */
  podUri: string;
  webId: string;
  /** The value of the Authorization header that makes a request the owner's. */
  authorization: string;
  /** For short-lived tokens: a fresh Authorization value (called before each round). */
  renew?(): Promise<string>;
}

export interface ServerSpec {
  name: string;
  /** Solid servers get a pod and the full workload set; the ceiling only answers the plain GET. */
  solid: boolean;
  command(port: number, dataDir: string): { executable: string; args: string[]; env?: Record<string, string> };
  /** A path that answers `200` once the server is ready. */
  readyPath: string;
  /** A server with no public `200` before a pod exists is ready at its first HTTP answer of any status. */
  readyOnAnyAnswer?: boolean;
  /** The host name clients use (default 127.0.0.1). */
  host?: string;
  /** Makes the benchmark's owner (a pod with a token). */
  createOwner?(base: string): Promise<Owner>;
}

export interface RunningServer {
  spec: ServerSpec;
  base: string;
  pid: number;
  /** Its fresh data directory, removed by `stop`. */
  dataDir: string;
  startupMs: number;
  stop(): Promise<void>;
  output(): string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Spawns the server and polls its ready path until it answers `200` (bounded to 60 s). */
export async function startServer(spec: ServerSpec): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), `svc-bench-${spec.name}-`));
  const { executable, args, env } = spec.command(port, dataDir);
  const started = performance.now();
  const child: ChildProcess = spawn(executable, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://${spec.host ?? '127.0.0.1'}:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited during startup:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${spec.name} gave no answer on ${spec.readyPath} within 60 s:\n${output}`);
    }
    const status = await fetch(base + spec.readyPath).then((response) => (void response.body?.cancel(), response.status), () => 0);
    if (status === 200 || (spec.readyOnAnyAnswer && status > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const startupMs = performance.now() - started;
  return {
    spec,
    base,
    pid: child.pid!,
    dataDir,
    startupMs,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Peak and current resident memory of a process, from /proc (Linux); null elsewhere. */
export async function memoryOf(pid: number): Promise<{ peakMb: number; currentMb: number } | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  if (!status) return null;
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, currentMb: kb('VmRSS') / 1024 };
}

/**
 * Bytes a directory tree takes on disk (allocated blocks, as `du` counts them: a file with several hard links
 * once); null when it does not exist.
 */
export async function diskUsage(directory: string, seen = new Set<string>()): Promise<number | null> {
  const info = await lstat(directory).catch(() => null);
  if (!info?.isDirectory()) return null;
  let total = info.blocks * 512;
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      total += (await diskUsage(path, seen)) ?? 0;
      continue;
    }
    const file = await lstat(path);
    const inode = `${file.dev}:${file.ino}`;
    if (seen.has(inode)) continue;
    seen.add(inode);
    total += file.blocks * 512;
  }
  return total;
}

async function json(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** `POST /.pods` as ours and javascript-solid-server answer it: `{ podUri, webId, token }`. */
async function podsEndpointOwner(base: string): Promise<Owner> {
  const created = await json(
    await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) }),
    'POST /.pods',
  );
  return { podUri: String(created.podUri), webId: String(created.webId), authorization: `Bearer ${String(created.token)}` };
}

/**
 * Community Solid Server 7: an account with a password login, a pod, client credentials, and an access
 * token from the client-credentials grant (a plain Bearer token, as no DPoP proof is sent).
 */
async function cssOwner(base: string): Promise<Owner> {
  const account = await json(await fetch(`${base}/.account/account/`, { method: 'POST' }), 'create account');
  // A GET that says its (empty) body is JSON is refused with 500, so only the POSTs carry the content type.
  const authorization = `CSS-Account-Token ${String(account.authorization)}`;
  const accountAuth = { authorization, 'content-type': 'application/json' };
  const controls = (await json(await fetch(`${base}/.account/`, { headers: { authorization } }), 'account controls')).controls as {
    password: { create: string };
    account: { pod: string; clientCredentials: string };
  };
  await json(await fetch(controls.password.create, { method: 'POST', headers: accountAuth, body: JSON.stringify({ email: 'bench@example.org', password: 'bench-password-1' }) }), 'password login');
  const pod = await json(await fetch(controls.account.pod, { method: 'POST', headers: accountAuth, body: JSON.stringify({ name: 'bench' }) }), 'create pod');
  const webId = String(pod.webId);
  const credentials = await json(
    await fetch(controls.account.clientCredentials, { method: 'POST', headers: accountAuth, body: JSON.stringify({ name: 'bench', webId }) }),
    'client credentials',
  );
  const basic = btoa(`${encodeURIComponent(String(credentials.id))}:${encodeURIComponent(String(credentials.secret))}`);
  // Its access tokens live 10 minutes, less than a run with peers takes: the benchmark renews before each round.
  const renew = async () => {
    const token = await json(
      await fetch(`${base}/.oidc/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=webid',
      }),
      'access token',
    );
    return `Bearer ${String(token.access_token)}`;
  };
  return { podUri: String(pod.pod), webId, authorization: await renew(), renew };
}

export const SVC_SCRIPT = join(ROOT, 'bin', 'svc.js');

/**
 * The environment deploy/svc.service of a checkout gives Node's process itself (its `Environment=` lines
 * other than svc's own SVC_* options: glibc's malloc settings), so each build of svc is measured as it is
 * deployed; none where the file has none.
 */
export function deployEnvironment(root: string): Record<string, string> {
  const unit = join(root, 'deploy', 'svc.service');
  if (!existsSync(unit)) return {};
  const env: Record<string, string> = {};
  for (const [, name, value] of readFileSync(unit, 'utf8').matchAll(/^Environment=(\w+)=(\S*)$/gm)) if (!name!.startsWith('SVC_')) env[name!] = value!;
  return env;
}

const DEPLOY_ENV = deployEnvironment(ROOT);

export const OURS: ServerSpec = {
  name: 'svc',
  solid: true,
  // Quotas off: the POST workload writes tens of megabytes, which the 50MB default would refuse with 507.
  // Private fetches on: the DPoP workload's issuer and WebID are on loopback.
  command: (port, dataDir) => ({
    executable: process.execPath,
    args: [SVC_SCRIPT, 'start', '-p', String(port), '-h', '127.0.0.1', '-r', dataDir, '-q', '--no-rate-limit', '--conneg', '--default-quota', '0', '--allow-private-fetch'],
    env: DEPLOY_ENV,
  }),
  readyPath: '/',
  createOwner: podsEndpointOwner,
};

/**
 * svc on `--storage s3`, against the S3-protocol server of the tests (s3rver over memory, a separate process
 * on loopback, whose CPU is not counted): each start gets a fresh key prefix, named after its data directory.
 */
export function oursOnS3(s3: { args(prefix: string): string[]; env: Record<string, string> }): ServerSpec {
  return {
    ...OURS,
    name: 'svc-s3',
    command: (port, dataDir) => {
      const { executable, args, env } = OURS.command(port, dataDir);
      return { executable, args: [...args, ...s3.args(`${basename(dataDir)}/`)], env: { ...env, ...s3.env } };
    },
  };
}

export const CEILING: ServerSpec = {
  name: 'hono-ceiling',
  solid: false,
  command: (port) => ({ executable: process.execPath, args: ['--import', 'tsx', join(ROOT, 'bench', 'ceiling.ts'), String(port)] }),
  readyPath: '/',
};

export const JSS: ServerSpec = {
  name: 'jss',
  solid: true,
  command: (port, dataDir) => ({
    executable: process.execPath,
    args: [JSS_BIN, 'start', '-p', String(port), '-h', '127.0.0.1', '-r', dataDir, '--conneg', '-q'],
    // A fixed secret only silences its startup warning; the token still comes from pod creation.
    env: { TOKEN_SECRET: 'svc-bench-secret-not-for-production' },
  }),
  readyPath: '/',
  // Its root answers 401 until a pod exists.
  readyOnAnyAnswer: true,
  createOwner: podsEndpointOwner,
};

export const CSS: ServerSpec = {
  name: 'css',
  solid: true,
  command: (port, dataDir) => ({
    executable: process.execPath,
    args: [CSS_BIN, '-c', '@css:config/file.json', '-f', dataDir, '-p', String(port), '-b', `http://localhost:${port}/`, '-l', 'warn'],
  }),
  // Its token verifier accepts a plain-http issuer and WebID only under the name localhost (loopback all the same).
  host: 'localhost',
  readyPath: '/',
  createOwner: cssOwner,
};
