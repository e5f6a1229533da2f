import { describe, expect, it } from 'vitest';
import { createSecurity } from '../../src/auth/security.ts';
import { errorToResponse } from '../../src/http/errors.ts';
import type { Change } from '../../src/ldp/context.ts';
import { remoteStorageHandler } from '../../src/remotestorage/handler.ts';
import { moduleOf, scopesAllow } from '../../src/remotestorage/scopes.ts';
import { remoteStorageTargetOf } from '../../src/remotestorage/target.ts';
import type { Caller } from '../../src/wac/access-control.ts';
import { BASE, makeApp } from '../support/app.ts';

describe('remoteStorage scopes', () => {
  it('finds the module of a path', () => {
    expect(moduleOf('/photos/2026/cat.jpg')).toBe('photos');
    expect(moduleOf('/photos/')).toBe('photos');
    expect(moduleOf('/public/photos/cat.jpg')).toBe('photos');
    expect(moduleOf('/public/photos/')).toBe('photos');
    expect(moduleOf('/')).toBeNull();
    expect(moduleOf('/loose.txt')).toBeNull();
    expect(moduleOf('/public/')).toBeNull();
    expect(moduleOf('/public/loose.txt')).toBeNull();
  });

  it('lets <module>:r read and <module>:rw also write the module and its public part', () => {
    expect(scopesAllow(['photos:r'], '/photos/cat.jpg', false)).toBe(true);
    expect(scopesAllow(['photos:r'], '/public/photos/cat.jpg', false)).toBe(true);
    expect(scopesAllow(['photos:r'], '/photos/cat.jpg', true)).toBe(false);
    expect(scopesAllow(['photos:rw'], '/photos/cat.jpg', true)).toBe(true);
    expect(scopesAllow(['photos:rw'], '/public/photos/', false)).toBe(true);
    expect(scopesAllow(['photos:rw'], '/notes/a', false)).toBe(false);
    expect(scopesAllow(['photos:rw'], '/photosx/a', false)).toBe(false);
    expect(scopesAllow(['photos:rw'], '/', false)).toBe(false);
    expect(scopesAllow(['photos:rw'], '/public/', false)).toBe(false);
  });

  it('lets *:r read and *:rw write everywhere, the root folder included, and ignores scopes of other kinds', () => {
    expect(scopesAllow(['*:r'], '/', false)).toBe(true);
    expect(scopesAllow(['*:r'], '/notes/a', false)).toBe(true);
    expect(scopesAllow(['*:r'], '/notes/a', true)).toBe(false);
    expect(scopesAllow(['*:rw'], '/loose.txt', true)).toBe(true);
    expect(scopesAllow(['read', 'write', 'photos', 'photos:x', ':rw'], '/photos/a', false)).toBe(false);
    expect(scopesAllow([], '/photos/a', false)).toBe(false);
    expect(scopesAllow(['notes:r', 'photos:rw'], '/photos/a', true)).toBe(true);
  });
});

/**
 * The handler with the app's real storage and Web Access Control, asked by callers whose tokens carry
 * scopes, as the OAuth server's tokens do (its verifier answers a WebID and scopes).
 */
async function scopedWorld() {
  const test = makeApp();
  const created = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  const { token } = (await created.json()) as { token: string };
  const security = createSecurity(test.config, { runtime: 'test', storage: test.storage, log: () => {} }, (request) => test.app.fetch(request) as Promise<Response>);
  await security.init();
  const published: Change[] = [];
  const serve = remoteStorageHandler({ config: test.config, storage: security.platform.storage, access: security.access, publish: (changes) => published.push(...changes) });
  const as = (scopes: readonly string[] | undefined, webId = `${BASE}/alice/#me`) => async (method: string, path: string, body?: string): Promise<Response> => {
    const request = new Request(BASE + path, { method, ...(body !== undefined && { body, headers: { 'Content-Type': 'text/plain' } }) });
    const caller: Caller = { webId, origin: null, serverOrigin: BASE, ...(scopes && { scopes }) };
    const target = await remoteStorageTargetOf(new URL(request.url), test.storage, test.config);
    try {
      return await serve(request, caller, target!);
    } catch (error) {
      return errorToResponse(error, () => {});
    }
  };
  const owner = (path: string, init: RequestInit = {}) => test.request(path, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain', ...init.headers } });
  return { as, owner, published, storage: test.storage };
}

describe('remoteStorage requests by scoped tokens', () => {
  it('answers 403 with insufficient_scope outside the scopes and serves what they reach', async () => {
    const { as, owner } = await scopedWorld();
    await owner('/storage/alice/notes/a', { method: 'PUT', body: 'note' });
    await owner('/storage/alice/photos/cat', { method: 'PUT', body: 'cat' });

    const photosReader = as(['photos:r']);
    expect(await (await photosReader('GET', '/storage/alice/photos/cat')).text()).toBe('cat');
    expect((await photosReader('GET', '/storage/alice/photos/')).status).toBe(200);
    const write = await photosReader('PUT', '/storage/alice/photos/dog', 'dog');
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toBe(`Bearer realm="${BASE}", error="insufficient_scope", scope="photos:rw"`);
    expect((await photosReader('DELETE', '/storage/alice/photos/cat')).status).toBe(403);
    expect((await photosReader('GET', '/storage/alice/notes/a')).status).toBe(403);
    const root = await photosReader('GET', '/storage/alice/');
    expect(root.status).toBe(403);
    expect(root.headers.get('www-authenticate')).toContain('scope="*:r"');

    const photosWriter = as(['photos:rw']);
    expect((await photosWriter('PUT', '/storage/alice/photos/dog', 'dog')).status).toBe(201);
    expect((await photosWriter('PUT', '/storage/alice/public/photos/dog', 'dog')).status).toBe(201);
    expect((await photosWriter('PUT', '/storage/alice/public/other/x', 'x')).status).toBe(403);
    expect((await photosWriter('PUT', '/storage/alice/notes/b', 'b')).status).toBe(403);
    expect((await photosWriter('DELETE', '/storage/alice/photos/dog')).status).toBe(200);

    const everythingReader = as(['*:r']);
    expect((await everythingReader('GET', '/storage/alice/')).status).toBe(200);
    expect((await everythingReader('GET', '/storage/alice/notes/a')).status).toBe(200);
    expect((await everythingReader('PUT', '/storage/alice/notes/a', 'changed')).status).toBe(403);
    expect((await as(['*:rw'])('PUT', '/storage/alice/notes/a', 'changed')).status).toBe(200);
    expect(await (await owner('/storage/alice/notes/a')).text()).toBe('changed');
  });

  it('reads public documents whatever the scopes, but never public folders without them', async () => {
    const { as, owner } = await scopedWorld();
    await owner('/storage/alice/public/notes/shared', { method: 'PUT', body: 'shared' });
    const photos = as(['photos:r']);
    expect((await photos('GET', '/storage/alice/public/notes/shared')).status).toBe(200);
    expect((await photos('GET', '/storage/alice/public/notes/')).status).toBe(403);
  });

  it('never gives a scoped token more than its WebID has: another user with *:rw is refused by WAC', async () => {
    const { as, storage } = await scopedWorld();
    const stranger = as(['*:rw'], 'https://elsewhere.example/profile#me');
    expect((await stranger('PUT', '/storage/alice/notes/x', 'x')).status).toBe(403);
    expect((await stranger('GET', '/storage/alice/')).status).toBe(403);
    expect(await storage.head('/alice/remotestorage/notes/x')).toBeNull();
  });

  it('publishes what a write and a delete changed, removed folders included, for notifications', async () => {
    const { as, published } = await scopedWorld();
    const writer = as(['notes:rw']);
    await writer('PUT', '/storage/alice/notes/day/a', 'a');
    expect(published).toEqual([
      { path: '/alice/remotestorage/', kind: 'create' },
      { path: '/alice/remotestorage/notes/', kind: 'create' },
      { path: '/alice/remotestorage/notes/day/', kind: 'create' },
      { path: '/alice/remotestorage/notes/day/a', kind: 'create' },
    ]);
    published.length = 0;
    await writer('DELETE', '/storage/alice/notes/day/a');
    expect(published).toEqual([
      { path: '/alice/remotestorage/notes/day/a', kind: 'delete' },
      { path: '/alice/remotestorage/notes/day/', kind: 'delete' },
      { path: '/alice/remotestorage/notes/', kind: 'delete' },
    ]);
  });
});
