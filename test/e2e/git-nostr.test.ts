import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACL_PREFIXES, ownerRule } from '../wac/pods.ts';
import { nostrSigner, type NostrSigner } from '../auth/nostr/signer.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

let scratch: string;
let server: RunningSvc;
let key: NostrSigner;
let stranger: NostrSigner;

function git(cwd: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: { PATH: process.env.PATH!, HOME: join(scratch, 'home'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' } }, (error, _stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

/** Git options that answer the credential prompt with a NIP-98 event as the password, as a credential helper would. */
const withEvent = (signer: NostrSigner, url: string, service: string) => {
  const event = signer.authorization(url, service).slice('Nostr '.length);
  return ['-c', `credential.helper=!f() { echo username=nostr; echo password=${event}; }; f`];
};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-git-nostr-'));
  await mkdir(join(scratch, 'home'));
  server = await startSvc(['-q', '--git']);
  const created = await fetch(`${server.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  const { token } = (await created.json()) as { token: string };
  key = nostrSigner();
  stranger = nostrSigner();
  const acl = ACL_PREFIXES + ownerRule('../#me') + `<#key> a acl:Authorization; acl:agent <${key.did}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.\n`;
  const put = await fetch(`${server.base}/alice/code/.acl`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body: acl });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('git push with a NIP-98 event as the Basic password (real git client)', () => {
  it('pushes with an event for the repository and git-receive-pack, signed by a key the ACL names', async () => {
    const local = join(scratch, 'local');
    expect((await git(scratch, ['init', '-q', '-b', 'main', local])).code).toBe(0);
    await writeFile(join(local, 'readme.txt'), 'pushed with a Nostr key');
    expect((await git(local, ['add', '-A'])).code).toBe(0);
    expect((await git(local, ['-c', 'user.name=T', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'first'])).code).toBe(0);
    const repository = `${server.base}/alice/code/site/`;

    const wrongKey = await git(local, [...withEvent(stranger, repository, 'git-receive-pack'), 'push', repository, 'main']);
    expect(wrongKey.code).not.toBe(0);
    const wrongService = await git(local, [...withEvent(key, repository, 'git-upload-pack'), 'push', repository, 'main']);
    expect(wrongService.code).not.toBe(0);
    expect(wrongService.stderr).toMatch(/401|Authentication failed/);
    expect((await fetch(`${repository}readme.txt`)).status).not.toBe(200);

    const pushed = await git(local, [...withEvent(key, repository, 'git-receive-pack'), 'push', repository, 'main']);
    expect(pushed.stderr).not.toMatch(/fatal/);
    expect(pushed.code).toBe(0);
    const read = await fetch(`${repository}readme.txt`, { headers: { authorization: key.authorization(`${repository}readme.txt`, 'GET') } });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('pushed with a Nostr key');
  });
});
