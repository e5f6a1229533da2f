import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/resolve.ts';
import { InviteStore } from '../../src/invites/store.ts';
import { readQuotaRecord } from '../../src/quota/record.ts';
import { parseRdf } from '../../src/rdf/convert.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { SINGLE_USER_CLAIM } from '../../src/pods/single-user.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, makeApp } from '../support/app.ts';
import { runSvc, startSvc } from '../support/server.ts';

const createPodRequest = (fields: Record<string, unknown>): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const putText = (token: string | null, body: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'text/plain', ...(token && bearer(token)) }, body });

async function singleUserApp(flags: Record<string, unknown>, storage: StorageDriver = new MemoryDriver()) {
  const test = makeApp({ singleUser: true, ...flags }, storage);
  await test.app.init();
  return { ...test, pod: await test.app.singleUserPod!() };
}

async function expectRegistrationRefused(response: Response): Promise<void> {
  expect(response.status).toBe(403);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(((await response.json()) as { type: string }).type).toBe('urn:svc:problem:registration-disabled');
}

/** Every path under the storage root, to show that a refused start changed nothing. */
async function allPaths(storage: StorageDriver, container = '/'): Promise<string[]> {
  const paths: string[] = [];
  for await (const member of storage.list(container)) {
    paths.push(member.path);
    if (member.isContainer) paths.push(...(await allPaths(storage, member.path)));
  }
  return paths.sort();
}

describe('--single-user with a named pod', () => {
  it('creates /me/ at startup with an owner token, a quota record, and owner-only private data', async () => {
    const { request, storage, pod } = await singleUserApp({ defaultQuota: '1MB' });
    expect(pod).toEqual({ name: 'me', podPath: '/me/', webIdPath: '/me/#me', token: expect.any(String) });
    expect((await request('/me/private/note.txt', putText(pod.token, 'secret'))).status).toBe(201);
    expect((await request('/me/private/note.txt')).status).toBe(401);
    expect(await (await request('/me/private/note.txt', { headers: bearer(pod.token!) })).text()).toBe('secret');
    const profile = await request('/me/', { headers: { accept: 'application/ld+json' } });
    const quads = await parseRdf(await profile.text(), 'application/ld+json', `${BASE}/me/`);
    expect(quads.some((q) => q.subject.value === `${BASE}/me/#me` && q.predicate.value === 'http://www.w3.org/ns/pim/space#storage')).toBe(true);
    const quota = (await readQuotaRecord(storage, '/me/'))!.record;
    expect(quota.limit).toBe(1024 * 1024);
    expect(quota.used).toBeGreaterThan(0);
  });

  it('takes its name from --single-user-name', async () => {
    const { request, storage, pod } = await singleUserApp({ singleUserName: 'alice' });
    expect(pod.podPath).toBe('/alice/');
    expect((await request('/alice/settings/prefs', { headers: bearer(pod.token!) })).status).toBe(200);
    expect(await storage.head('/me/')).toBeNull();
  });

  it('refuses every POST /.pods with 403 problem+json, with or without an invite code, and creates nothing', async () => {
    const storage = new MemoryDriver();
    const { code } = await new InviteStore(storage).create({ maxUses: 5 });
    const { request } = await singleUserApp({ inviteOnly: true }, storage);
    await expectRegistrationRefused(await request('/.pods', createPodRequest({ name: 'bob' })));
    await expectRegistrationRefused(await request('/.pods', createPodRequest({ name: 'bob', invite: code })));
    expect(await storage.head('/bob/')).toBeNull();
    expect((await new InviteStore(storage).list())[0]!.uses).toBe(0);
  });

  it('finds the pod on later starts: same data, no new token, and the first token still works', async () => {
    const storage = new MemoryDriver();
    const first = await singleUserApp({}, storage);
    await first.request('/me/public/hello.txt', putText(first.pod.token, 'hello'));
    const second = await singleUserApp({}, storage);
    expect(second.pod.token).toBeNull();
    expect(await (await second.request('/me/public/hello.txt')).text()).toBe('hello');
    expect((await second.request('/me/public/hello.txt', putText(first.pod.token, 'again'))).status).toBe(204);
  });

  it('creates the pod even when the first request comes before init', async () => {
    const { request, app, storage } = makeApp({ singleUser: true });
    expect((await request('/me/', { headers: { accept: 'text/html' } })).status).toBe(200);
    expect((await app.singleUserPod!()).token).toEqual(expect.any(String));
    expect(await storage.head('/.server/pods/me.json')).not.toBeNull();
  });

  it('stops startup on an invalid or reserved name', async () => {
    for (const name of ['Me', 'idp', 'a/b']) {
      const { app } = makeApp({ singleUser: true, singleUserName: name });
      await expect(app.init()).rejects.toThrow(ConfigError);
    }
  });

  it('stops startup, changing nothing, when /me/ holds data that is not a pod', async () => {
    const storage = new MemoryDriver();
    await makeApp({}, storage).app.init();
    await storage.put('/me/notes.txt', 'mine', { contentType: 'text/plain' });
    const { app } = makeApp({ singleUser: true }, storage);
    const before = await allPaths(storage);
    await expect(app.init()).rejects.toThrow(/already exists but is not a pod/);
    expect(await allPaths(storage)).toEqual(before);
  });
});

describe('--single-user with an empty name: the pod at /', () => {
  it('puts the pod at / with the WebID /profile/card#me, owned by the token holder', async () => {
    const { request, pod } = await singleUserApp({ singleUserName: '' });
    expect(pod).toEqual({ name: '', podPath: '/', webIdPath: '/profile/card#me', token: expect.any(String) });
    const card = await request('/profile/card');
    expect(card.status).toBe(200);
    const quads = await parseRdf(await card.text(), 'application/ld+json', `${BASE}/profile/card`);
    const me = `${BASE}/profile/card#me`;
    expect(quads.some((q) => q.subject.value === me && q.predicate.value === 'http://www.w3.org/ns/pim/space#storage' && q.object.value === `${BASE}/`)).toBe(true);
    expect(quads.some((q) => q.subject.value === me && q.predicate.value === 'http://www.w3.org/ns/ldp#inbox' && q.object.value === `${BASE}/inbox/`)).toBe(true);

    expect((await request('/notes/todo.txt', putText(pod.token, 'write tests'))).status).toBe(201);
    expect((await request('/notes/todo.txt', putText(null, 'vandalism'))).status).toBe(401);
    expect((await request('/private/diary.txt', putText(pod.token, 'dear diary'))).status).toBe(201);
    expect((await request('/private/diary.txt')).status).toBe(401);
    expect((await request('/settings/prefs', { headers: bearer(pod.token!) })).status).toBe(200);
    expect((await request('/profile/card', putText(null, 'not me'))).status).toBe(401);
    await expectRegistrationRefused(await request('/.pods', createPodRequest({ name: 'bob' })));
  });

  it('finds the pod on later starts without touching it again', async () => {
    const storage = new MemoryDriver();
    const first = await singleUserApp({ singleUserName: '' }, storage);
    const acl = await storage.head('/.acl');
    const second = await singleUserApp({ singleUserName: '' }, storage);
    expect(second.pod.token).toBeNull();
    expect((await storage.head('/.acl'))!.etag).toBe(acl!.etag);
    expect((await second.request('/notes/a.txt', putText(first.pod.token, 'a'))).status).toBe(201);
  });

  it('stops startup, changing nothing, when the root ACL was edited by hand or a skeleton file exists', async () => {
    const edited = new MemoryDriver();
    await makeApp({}, edited).app.init();
    await edited.put('/.acl', '# mine\n', { contentType: 'text/turtle' });
    const before = await allPaths(edited);
    await expect(makeApp({ singleUser: true, singleUserName: '' }, edited).app.init()).rejects.toThrow(/root ACL \/\.acl was changed by hand/);
    expect(await allPaths(edited)).toEqual(before);

    // A multi-user server already has a pod named "private": its ACL is where the root pod's would go.
    const taken = new MemoryDriver();
    await makeApp({}, taken).app.init();
    await taken.put('/private/.acl', '# a pod\n', { contentType: 'text/turtle' });
    const rootAcl = await taken.head('/.acl');
    const takenBefore = await allPaths(taken);
    await expect(makeApp({ singleUser: true, singleUserName: '' }, taken).app.init()).rejects.toThrow(/\/private\/\.acl already exists/);
    expect(await allPaths(taken)).toEqual(takenBefore);
    expect(new TextDecoder().decode(await new Response((await taken.get('/.acl'))!.body).arrayBuffer())).toContain('acl:agentClass foaf:Agent');
    expect((await taken.head('/.acl'))!.size).toBe(rootAcl!.size);
  });
});

describe('--single-user: instances that start together on one storage make the pod once', () => {
  for (const [label, flags, podPath, record] of [
    ['named pod', {}, '/me/', '/.server/pods/me.json'],
    ['pod at /', { singleUserName: '' }, '/', '/.server/root-pod.json'],
  ] as const) {
    it(`${label}: concurrent first requests of two instances both succeed, and one of them made it`, async () => {
      const storage = new MemoryDriver();
      const instances = [makeApp({ singleUser: true, ...flags }, storage), makeApp({ singleUser: true, ...flags }, storage)];
      const answers = await Promise.all(instances.map(({ request }) => request(podPath, { headers: { accept: 'application/ld+json' } })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const tokens = await Promise.all(instances.map(async ({ app }) => (await app.singleUserPod!()).token));
      expect(tokens.filter((token) => token !== null)).toHaveLength(1);
      expect(await storage.head(record)).not.toBeNull();
      expect(await storage.head(SINGLE_USER_CLAIM)).toBeNull();
      const owner = tokens.find((token) => token !== null)!;
      for (const { request } of instances) expect((await request(`${podPath}private/x.txt`, putText(owner, 'x'))).status).toBeLessThan(300);
    });
  }

  it('an instance that stopped while making the pod leaves a claim the next start takes over', async () => {
    const storage = new MemoryDriver();
    await storage.put(SINGLE_USER_CLAIM, JSON.stringify({ started: Date.now() - 60_000 }), { contentType: 'application/json' });
    const { pod } = await singleUserApp({}, storage);
    expect(pod.token).toEqual(expect.any(String));
    expect(await storage.head(SINGLE_USER_CLAIM)).toBeNull();
  });
});

describe('svc start --single-user (real process)', () => {
  it('prints the owner token at first start, and how to get a new one with svc token on later starts', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-single-'));
    try {
      const first = await startSvc(['-q', '--single-user', '-r', root]);
      const token = /owner token[^\n]*:\n(\S+)/.exec(first.output())?.[1];
      expect(first.output()).toContain(`single-user pod: ${first.base}/me/\nWebID: ${first.base}/me/#me (WebIDs carry the origin each request comes to`);
      expect(token).toBeDefined();
      const put = await fetch(`${first.base}/me/private/a.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain', ...bearer(token!) }, body: 'a' });
      expect(put.status).toBe(201);
      const refused = await fetch(`${first.base}/.pods`, createPodRequest({ name: 'bob' }));
      await expectRegistrationRefused(refused);
      await first.stop();

      const second = await startSvc(['-q', '--single-user', '-r', root]);
      expect(second.output()).toContain(`a new one: svc token me -r ${root}`);
      expect(second.output()).not.toMatch(/owner token \(/);
      const minted = await runSvc(['token', 'me', '-r', root]);
      expect(minted.code).toBe(0);
      const read = await fetch(`${second.base}/me/private/a.txt`, { headers: bearer(minted.stdout.trim()) });
      expect(await read.text()).toBe('a');
      await second.stop();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("puts the pod at / with --single-user-name '' and mints its tokens with svc token /", async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-single-'));
    try {
      const svc = await startSvc(['-q', '--single-user', '--single-user-name', '', '-r', root]);
      expect(svc.output()).toContain(`single-user pod: ${svc.base}/\nWebID: ${svc.base}/profile/card#me`);
      expect(svc.output()).not.toContain('not available yet');
      const minted = await runSvc(['token', '/', '-r', root]);
      expect(minted.code).toBe(0);
      const put = await fetch(`${svc.base}/notes/a.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain', ...bearer(minted.stdout.trim()) }, body: 'a' });
      expect(put.status).toBe(201);
      expect((await fetch(`${svc.base}/profile/card`)).status).toBe(200);
      await svc.stop();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
