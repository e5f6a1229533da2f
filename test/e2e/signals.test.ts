import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const REPOSITORY = join(import.meta.dirname, '..', '..');

/** The processes below `pid` (npm's shell, the server), read from /proc. */
async function descendantsOf(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // `pid (comm) state ppid ...`: comm may hold spaces, so read after its closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const commandLineOf = async (pid: number) => (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ');

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const started: number[] = [];
afterEach(() => {
  // A server left behind by a failing run is stopped by its PID.
  for (const pid of started.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/**
 * Runs `svc start` the way an operator would through npm, writes a file into a new pod (so a quota count is
 * pending: the fs driver saves counts by a checkpoint a second later), sends SIGTERM to npm, and returns
 * what the server printed and what is on disk afterwards.
 */
async function stopThroughNpm(command: string[]): Promise<{ output: string; quota: { used: number }; serverExited: boolean; npm: ChildProcess }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-signals-'));
  // --ignore-scripts: no prestart bundling of dist/ under the other tests' feet.
  const npm = spawn('npm', [...command, '-p', '0', '-h', '127.0.0.1', '-r', root, '-q'], {
    cwd: REPOSITORY,
    env: { ...process.env, SVC_RATE_LIMIT: 'false', npm_config_ignore_scripts: 'true', npm_config_yes: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout!.on('data', (chunk) => (output += chunk));
  npm.stderr!.on('data', (chunk) => (output += chunk));
  const npmExited = new Promise((resolve) => npm.once('exit', resolve));
  await until(() => /svc listening on /.test(output), `svc to listen:\n${output}`);
  const base = /svc listening on (http:\/\/[^\s/]+)/.exec(output)![1]!;
  const below = await descendantsOf(npm.pid!);
  started.push(...below);
  const commandLines = await Promise.all(below.map(commandLineOf));
  const server = below.find((_, index) => /bin\/svc(\.js)? start/.test(commandLines[index]!))!;
  expect(server).toBeDefined();

  const created = await fetch(`${base}/.pods`, { method: 'POST', body: JSON.stringify({ name: 'alice' }), headers: { 'Content-Type': 'application/json' } });
  const { token } = (await created.json()) as { token: string };
  const written = await fetch(`${base}/alice/notes.txt`, { method: 'PUT', body: 'x'.repeat(5000), headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' } });
  expect(written.status).toBe(201);

  npm.kill('SIGTERM');
  await npmExited;
  let serverExited = true;
  await until(() => !alive(server), 'the server to exit', 15_000).catch(() => (serverExited = false));
  const quota = JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8')) as { used: number };
  return { output, quota, serverExited, npm };
}

describe('stopping svc run through npm with SIGTERM', () => {
  it('npm start: the signal reaches the server, which saves the pending quota count and says so', async () => {
    const { output, quota, serverExited } = await stopThroughNpm(['start', '--']);
    expect(serverExited).toBe(true);
    expect(output).toContain('SIGTERM received: finishing in-flight requests, then exiting.');
    expect(output).toContain('svc stopped: every request answered, quota counts and pending records saved.');
    expect(quota.used).toBeGreaterThanOrEqual(5000);
  }, 60_000);

  it('npx svc start (below a shell that does not pass the signal on): the server stops when npm has gone', async () => {
    const { output, quota, serverExited } = await stopThroughNpm(['exec', '--no', '--', 'svc', 'start']);
    expect(serverExited).toBe(true);
    expect(output).toContain('the npm process that started svc has exited: finishing in-flight requests, then exiting.');
    expect(output).toContain('svc stopped:');
    expect(quota.used).toBeGreaterThanOrEqual(5000);
  }, 60_000);
});
