/** `--git` in subdomain mode: the real git pushes to and clones from a repository on the pod's host. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localhostFetch } from '../support/localhost-hosts.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const run = promisify(execFile);
let svc: RunningSvc;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-git-subdomains-'));
  svc = await startSvc(['--subdomains', '--base-domain', 'localhost', '--git', '--quiet']);
});

afterAll(async () => {
  await svc.stop();
  await rm(scratch, { recursive: true, force: true });
});

/** git with an isolated HOME; curl, under git, sends *.localhost to the loopback address itself. */
const git = (cwd: string, args: string[]) =>
  run('git', args, { cwd, env: { PATH: process.env.PATH!, HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' } });

describe('git in subdomain mode', () => {
  it('pushes to <pod host>/public/repo/ (stored under the pod) and clones it back anonymously', async () => {
    const created = await localhostFetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    const { token } = (await created.json()) as { token: string };
    const repository = `${svc.base.replace('//localhost:', '//alice.localhost:')}/public/repo/`;
    const local = join(scratch, 'local');
    await git(scratch, ['init', '-q', '-b', 'main', local]);
    await writeFile(join(local, 'a.txt'), 'hello from git');
    await git(local, ['add', 'a.txt']);
    await git(local, ['-c', 'user.email=a@example.org', '-c', 'user.name=a', 'commit', '-qm', 'first']);
    await git(local, ['-c', `credential.helper=!f() { echo username=git; echo password=${token}; }; f`, 'push', '-q', repository, 'main']);
    await git(scratch, ['clone', '-q', repository, 'clone']);
    expect(await readFile(join(scratch, 'clone', 'a.txt'), 'utf8')).toBe('hello from git');
    expect(await readFile(join(svc.root, 'alice', 'public', 'repo', 'a.txt'), 'utf8')).toBe('hello from git');
  });
});
