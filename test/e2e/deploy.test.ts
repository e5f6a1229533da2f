import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/local-process.ts';

const REPOSITORY = join(import.meta.dirname, '..', '..');
const UNIT = join(REPOSITORY, 'deploy', 'svc.service');
const CONTAINERFILE = join(REPOSITORY, 'deploy', 'Containerfile');
// verify also checks that the unit's /usr/bin/node is there.
const systemdAnalyze = existsSync('/usr/bin/node') ? ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path)) : undefined;

/** The settings of a unit file: every value of each key, in order. */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
}

/**
 * Runs a service's command as its manager would (this repository where it says /opt/svc, a fresh data
 * directory, a free port), writes into a new pod, sends the manager's stop signal, and gives what happened.
 */
async function runAndStop(command: string[], env: Record<string, string>, signal: NodeJS.Signals, graceMs: number) {
  const root = await mkdtemp(join(tmpdir(), 'svc-deploy-'));
  const port = await freePort();
  // This repository stands for /opt/svc, and this Node for the unit's /usr/bin/node.
  const [program, ...args] = command.map((word) => (word === '/usr/bin/node' ? process.execPath : word.replace('/opt/svc', REPOSITORY)));
  const child = spawn(program!, args, {
    cwd: REPOSITORY,
    env: { PATH: process.env.PATH!, ...env, SVC_ROOT: root, SVC_PORT: String(port), SVC_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 20_000;
    while (!output.includes('svc listening on') && Date.now() < deadline && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(output).toContain(`svc listening on http://127.0.0.1:${port}/`);
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/.pods`, { method: 'POST', body: JSON.stringify({ name: 'alice' }), headers: { 'Content-Type': 'application/json' } });
    const { token } = (await created.json()) as { token: string };
    const written = await fetch(`${base}/alice/notes.txt`, { method: 'PUT', body: 'x'.repeat(4000), headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' } });
    expect(written.status).toBe(201);
    const sent = Date.now();
    child.kill(signal);
    const code = await exited;
    return { code, output, stoppedWithinMs: Date.now() - sent <= graceMs, quota: JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8')) as { used: number } };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('deploy/svc.service (systemd)', () => {
  it.skipIf(!systemdAnalyze)('passes systemd-analyze verify', async () => {
    await expect(promisify(execFile)(systemdAnalyze!, ['verify', UNIT])).resolves.toMatchObject({ stderr: '' });
  });

  it('runs its ExecStart with its Environment, and stops cleanly on its KillSignal within TimeoutStopSec', async () => {
    const settings = unitSettings(await readFile(UNIT, 'utf8'));
    const env = Object.fromEntries(settings.get('Environment')!.map((pair) => pair.split('=', 2) as [string, string]));
    const signal = settings.get('KillSignal')![0] as NodeJS.Signals;
    const stopped = await runAndStop(settings.get('ExecStart')![0]!.split(' '), env, signal, Number(settings.get('TimeoutStopSec')![0]) * 1000);
    expect(stopped.code).toBe(0);
    expect(stopped.stoppedWithinMs).toBe(true);
    expect(stopped.output).toContain(`${signal} received`);
    expect(stopped.output).toContain('svc stopped: every request answered, quota counts and pending records saved.');
    expect(stopped.quota.used).toBeGreaterThanOrEqual(4000);
  }, 60_000);
});

describe('deploy/Containerfile', () => {
  it('runs its CMD with its ENV as the main process, and stops cleanly on its STOPSIGNAL', async () => {
    const text = await readFile(CONTAINERFILE, 'utf8');
    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(text)![1]!) as string[];
    // Every ENV line (svc's options, then glibc's malloc setting).
    const env = Object.fromEntries([...text.matchAll(/^ENV (.*)$/gm)].flatMap(([, line]) => [...line!.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!])));
    const signal = /^STOPSIGNAL (\w+)$/m.exec(text)![1] as NodeJS.Signals;
    // `docker stop` waits 10 s before it kills.
    const stopped = await runAndStop(command, env, signal, 10_000);
    expect(stopped.code).toBe(0);
    expect(stopped.stoppedWithinMs).toBe(true);
    expect(stopped.output).toContain('svc stopped:');
    expect(stopped.quota.used).toBeGreaterThanOrEqual(4000);
  }, 60_000);
});
