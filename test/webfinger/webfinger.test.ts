import { describe, expect, it } from 'vitest';
import { BASE, makeApp } from '../support/app.ts';

const HOST = new URL(BASE).host;

async function appWithPod(flags: Record<string, unknown> = {}) {
  const test = makeApp(flags);
  const created = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  expect(created.status).toBe(201);
  return test;
}

const finger = (resource: string) => `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;

describe('WebFinger', () => {
  it('describes a pod user found by acct: URI, WebID or pod URL', async () => {
    const test = await appWithPod();
    for (const resource of [`acct:alice@${HOST}`, `${BASE}/alice/#me`, `${BASE}/alice/`]) {
      const response = await test.request(finger(resource));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/jrd+json');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        subject: `acct:alice@${HOST}`,
        aliases: [`${BASE}/alice/#me`, `${BASE}/alice/`],
        links: [
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `${BASE}/alice/` },
          // remoteStorage is always on (test/remotestorage/webfinger.test.ts checks its link).
          expect.objectContaining({ rel: 'http://tools.ietf.org/id/draft-dejong-remotestorage' }),
        ],
      });
    }
  });

  it('finds the pod at the root of a single-user server by the ActivityPub username', async () => {
    const test = makeApp({ singleUser: true, singleUserName: '', apUsername: 'bob' });
    await test.app.init();
    await test.app.singleUserPod!();
    const response = await test.request(finger(`acct:bob@${HOST}`));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { aliases: string[] }).aliases).toEqual([`${BASE}/profile/card#me`, `${BASE}/profile/card`]);
  });

  it('answers 404 for users it does not hold, other hosts and other origins', async () => {
    const test = await appWithPod();
    for (const resource of [`acct:carol@${HOST}`, 'acct:alice@elsewhere.example', 'https://elsewhere.example/alice/#me', `acct:../x@${HOST}`]) {
      const response = await test.request(finger(resource));
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('answers 400 without exactly one well-formed resource', async () => {
    const test = await appWithPod();
    for (const path of ['/.well-known/webfinger', '/.well-known/webfinger?resource=', finger('acct:alice'), finger('acct:@host'), finger('not a uri'), `${finger(`acct:alice@${HOST}`)}&resource=x`]) {
      const response = await test.request(path);
      expect(response.status, path).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it("names a pod's WebID on the pod's host in subdomain mode, and finds the user by it", async () => {
    const test = makeApp({ subdomains: true, baseDomain: 'pods.test' });
    const created = await test.app.fetch(new Request('http://pods.test/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) }));
    expect(created.status).toBe(201);
    for (const resource of ['acct:alice@pods.test', 'http://alice.pods.test/#me', 'http://alice.pods.test/']) {
      const response = await test.app.fetch(new Request(`http://pods.test${finger(resource)}`));
      expect(response.status, resource).toBe(200);
      expect(((await response.json()) as { aliases: string[] }).aliases).toEqual(['http://alice.pods.test/#me', 'http://alice.pods.test/']);
    }
    expect((await test.app.fetch(new Request(`http://pods.test${finger('http://carol.pods.test/#me')}`))).status).toBe(404);
  });

  it('filters links by rel', async () => {
    const test = await appWithPod();
    const response = await test.request(`${finger(`acct:alice@${HOST}`)}&rel=self`);
    expect(((await response.json()) as { links: unknown[] }).links).toEqual([]);
  });
});
