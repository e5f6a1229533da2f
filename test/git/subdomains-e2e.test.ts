/** `--git` in subdomain mode: the real git pushes to and clones from a repository on the pod's host. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nostrSigner } from '../auth/nostr/signer.ts';
import { localhostFetch } from '../support/localhost-hosts.ts';
import { ACL_PREFIXES, ownerRule } from '../wac/pods.ts';
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

/** Git options that answer the credential prompt with `password`, as a credential helper would. */
const withPassword = (password: string) => ['-c', `credential.helper=!f() { echo username=git; echo password=${password}; }; f`];

describe('git in subdomain mode', () => {
  let alice = '';
  let token = '';
  let local = '';

  beforeAll(async () => {
    const created = await localhostFetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    token = ((await created.json()) as { token: string }).token;
    alice = svc.base.replace('//localhost:', '//alice.localhost:');
    local = join(scratch, 'local');
    await git(scratch, ['init', '-q', '-b', 'main', local]);
    await writeFile(join(local, 'a.txt'), 'hello from git');
    await git(local, ['add', 'a.txt']);
    await git(local, ['-c', 'user.email=a@example.org', '-c', 'user.name=a', 'commit', '-qm', 'first']);
  });

  it('pushes to <pod host>/public/repo/ (stored under the pod) and clones it back anonymously', async () => {
    const repository = `${alice}/public/repo/`;
    await git(local, [...withPassword(token), 'push', '-q', repository, 'main']);
    await git(scratch, ['clone', '-q', repository, 'clone']);
    expect(await readFile(join(scratch, 'clone', 'a.txt'), 'utf8')).toBe('hello from git');
    expect(await readFile(join(svc.root, 'alice', 'public', 'repo', 'a.txt'), 'utf8')).toBe('hello from git');
  });

  it('pushes with a NIP-98 event signed for the repository URL on the pod host', async () => {
    const key = nostrSigner();
    const acl = ACL_PREFIXES + ownerRule('../#me') + `<#key> a acl:Authorization; acl:agent <${key.did}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.\n`;
    const put = await localhostFetch(`${alice}/code/.acl`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body: acl });
    expect(put.status).toBe(201);
    const repository = `${alice}/code/site/`;
    const event = key.authorization(repository, 'git-receive-pack').slice('Nostr '.length);
    await git(local, [...withPassword(event), 'push', '-q', repository, 'main']);
    expect(await readFile(join(svc.root, 'alice', 'code', 'site', 'a.txt'), 'utf8')).toBe('hello from git');
  });
});
