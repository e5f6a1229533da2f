import { describe, expect, it } from 'vitest';
import { BASE, makeApp } from '../support/app.ts';

const HOST = new URL(BASE).host;
const REL = 'http://tools.ietf.org/id/draft-dejong-remotestorage';

async function remoteStorageLinks(flags: Record<string, unknown>, user: string, setup: (test: ReturnType<typeof makeApp>) => Promise<void>) {
  const test = makeApp(flags);
  await setup(test);
  const response = await test.request(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${user}@${HOST}`)}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { links: { rel: string; properties?: Record<string, string | null> }[] }).links.filter((link) => link.rel === REL);
}

const createAlice = async (test: ReturnType<typeof makeApp>) => {
  const body = JSON.stringify({ name: 'alice', email: 'alice@example.org', password: 'correct horse battery' });
  expect((await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(201);
};

describe('the WebFinger remoteStorage link', () => {
  it('names the storage root and the draft version, with no OAuth dialog without --idp', async () => {
    expect(await remoteStorageLinks({}, 'alice', createAlice)).toEqual([
      {
        rel: REL,
        href: `${BASE}/storage/alice`,
        properties: {
          'http://remotestorage.io/spec/version': 'draft-dejong-remotestorage-22',
          'http://tools.ietf.org/html/rfc6749#section-4.2': null,
          'http://tools.ietf.org/html/rfc6750#section-2.3': null,
          'http://tools.ietf.org/html/rfc7233': null,
          'http://remotestorage.io/spec/web-authoring': null,
        },
      },
    ]);
  });

  it('names the OAuth dialog with --idp', async () => {
    const [link] = await remoteStorageLinks({ idp: true }, 'alice', createAlice);
    expect(link!.properties!['http://tools.ietf.org/html/rfc6749#section-4.2']).toBe(`${BASE}/oauth/authorize`);
  });

  it('links the pod at the root of a single-user server, whose documents live in /remotestorage/', async () => {
    const test = makeApp({ singleUser: true, singleUserName: '', apUsername: 'me' });
    await test.app.init();
    const { token } = await test.app.singleUserPod!();
    const response = await test.request(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:me@${HOST}`)}`);
    const links = ((await response.json()) as { links: { rel: string; href: string }[] }).links;
    expect(links.find((link) => link.rel === REL)!.href).toBe(`${BASE}/storage/me`);
    const auth = { Authorization: `Bearer ${token}` };
    expect((await test.request('/storage/me/notes/a', { method: 'PUT', body: 'x', headers: { ...auth, 'Content-Type': 'text/plain' } })).status).toBe(201);
    expect(await (await test.request('/remotestorage/notes/a', { headers: auth })).text()).toBe('x');
  });
});
