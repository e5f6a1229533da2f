import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import remotestoragejs from 'remotestoragejs';
import { startSvc, type RunningSvc } from '../support/server.ts';

// The package is CommonJS whose `module.exports` is the class, while its types declare an ES default export.
const RemoteStorage = remotestoragejs as unknown as typeof remotestoragejs.default;

const PASSWORD = 'correct horse battery staple';

/**
 * The remoteStorage client library, as a browser app uses it, against a real server process: discovery by
 * WebFinger (it sends the token only because the link names an OAuth dialog, which --idp brings), then
 * documents written, read, listed and deleted through its BaseClient, with caching off so every call
 * reaches the server.
 */
describe('remotestoragejs against svc', () => {
  let svc: RunningSvc;
  let token: string;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await fetch(`${svc.base}/.pods`, json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}\n${svc.output()}`);
    // With --idp the owner's bearer token comes from the IdP (POST /.pods answers the login page instead).
    const login = await fetch(`${svc.base}/idp/credentials`, json({ email: 'alice@example.org', password: PASSWORD }));
    token = ((await login.json()) as { access_token: string }).access_token;
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('connects through WebFinger with a token, then writes, reads, lists and deletes', async () => {
    const remoteStorage = new RemoteStorage({ cache: false });
    remoteStorage.access.claim('notes', 'rw');
    const connected = new Promise<void>((resolve, reject) => {
      remoteStorage.on('connected', () => resolve());
      remoteStorage.on('error', (error: unknown) => reject(error));
    });
    remoteStorage.connect(`alice@${new URL(svc.base).host}`, token);
    await connected;
    expect(remoteStorage.remote.href).toBe(`${svc.base}/storage/alice`);
    expect(remoteStorage.remote.storageApi).toBe('draft-dejong-remotestorage-22');

    const notes = remoteStorage.scope('/notes/');
    const stored = (await notes.storeFile('text/plain', 'day/today.txt', 'written by remotestoragejs')) as string;
    expect(stored).toMatch(/\S/);
    await notes.storeFile('application/json', 'day/todo', JSON.stringify({ text: 'milk' }));

    const file = (await notes.getFile('day/today.txt')) as { data: string; contentType: string; revision: string };
    expect(file.data).toBe('written by remotestoragejs');
    expect(file.contentType).toBe('text/plain');
    expect(file.revision).toBe(stored);

    const viaLdp = await fetch(`${svc.base}/alice/remotestorage/notes/day/today.txt`, { headers: { authorization: `Bearer ${token}` } });
    expect(await viaLdp.text()).toBe('written by remotestoragejs');

    const listing = (await notes.getListing('day/')) as Record<string, unknown>;
    expect(Object.keys(listing).sort()).toEqual(['today.txt', 'todo']);
    const root = (await notes.getListing('')) as Record<string, unknown>;
    expect(Object.keys(root)).toEqual(['day/']);

    await notes.remove('day/today.txt');
    await notes.remove('day/todo');
    expect(((await notes.getFile('day/today.txt')) as { data: unknown }).data).toBeUndefined();
    expect((await fetch(`${svc.base}/alice/remotestorage/notes/day/today.txt`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
    expect(await notes.getListing('')).toEqual({});
    remoteStorage.disconnect();
  });
});
