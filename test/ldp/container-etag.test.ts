import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { makeApp, type TestApp } from '../support/app.ts';

let root: string;
let app: TestApp;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-container-etag-'));
  app = makeApp({ public: true }, await FsDriver.open(root));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const putText = (path: string, body: string, headers: Record<string, string> = {}) => app.request(path, { method: 'PUT', body, headers: { 'content-type': 'text/plain', ...headers } });

describe("a container's ETag", () => {
  it('changes, with Last-Modified, when a member is edited in place on disk, which leaves the directory as it was', async () => {
    expect((await putText('/c/note.txt', 'first')).status).toBe(201);
    const before = await app.request('/c/');
    const etag = before.headers.get('etag')!;
    expect(await before.text()).toContain('"size":"5"');

    const lastModified = before.headers.get('last-modified')!;
    const file = join(root, 'c', 'note.txt');
    await writeFile(file, 'edited in place, longer');
    // Seconds later, as an edit would be: Last-Modified and If-Modified-Since count whole seconds.
    const later = new Date(Date.now() + 10_000);
    await utimes(file, later, later);
    // The listing sees the edit once its aged scan has run (the directory's own version did not move).
    await vi.waitFor(async () => expect(await (await app.request('/c/')).text()).toContain('"size":"23"'), { timeout: 10_000, interval: 100 });

    const revalidated = await app.request('/c/', { headers: { 'if-none-match': etag } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.headers.get('etag')).not.toBe(etag);
    expect(await revalidated.text()).toContain('"size":"23"');
    const bySince = await app.request('/c/', { headers: { 'if-modified-since': lastModified } });
    expect(bySince.status).toBe(200);
    expect(Date.parse(bySince.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(lastModified));
  });

  it('is the same in the answer that made it (PUT, POST), GET, HEAD and the preconditions of POST and DELETE', async () => {
    const made = await app.request('/c/', { method: 'PUT' });
    expect(made.status).toBe(201);
    const created = made.headers.get('etag');
    expect(created).toBe((await app.request('/c/')).headers.get('etag'));
    expect(created).toBe((await app.request('/c/', { method: 'HEAD' })).headers.get('etag'));

    expect((await putText('/c/a.txt', 'a')).status).toBe(201);
    const etag = (await app.request('/c/')).headers.get('etag')!;
    expect(etag).not.toBe(created);
    expect((await app.request('/c/', { method: 'HEAD' })).headers.get('etag')).toBe(etag);
    expect((await app.request('/c/', { headers: { 'if-none-match': etag } })).status).toBe(304);

    const post = (ifMatch: string) => app.request('/c/', { method: 'POST', body: 'b', headers: { 'content-type': 'text/plain', 'if-match': ifMatch } });
    expect((await post(created!)).status).toBe(412);
    expect((await post(etag)).status).toBe(201);

    const posted = await app.request('/c/', { method: 'POST', headers: { slug: 'sub', link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' } });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('etag')).toBe((await app.request('/c/sub/')).headers.get('etag'));

    expect((await app.request('/d/', { method: 'PUT' })).status).toBe(201);
    const emptied = (await app.request('/d/')).headers.get('etag')!;
    expect((await app.request('/d/', { method: 'DELETE', headers: { 'if-match': etag } })).status).toBe(412);
    expect((await app.request('/d/', { method: 'DELETE', headers: { 'if-match': emptied } })).status).toBe(204);
  });
});
