import { describe, expect, it } from 'vitest';
import { AS_ALSO_KNOWN_AS } from '../../../src/auth/nostr/owner-key.ts';
import { ConfigError } from '../../../src/config/resolve.ts';
import { parseRdf } from '../../../src/rdf/convert.ts';
import { BASE, makeApp, type TestApp } from '../../support/app.ts';
import { runSvc } from '../../support/server.ts';

const PUBKEY = 'a'.repeat(44) + '0123456789abcdef0123';

/** The objects of `as:alsoKnownAs` on the WebID in its profile document. */
async function alsoKnownAs(test: TestApp, profile: string, webId: string): Promise<string[]> {
  const response = await test.request(profile, { headers: { accept: 'application/ld+json' } });
  expect(response.status).toBe(200);
  const quads = await parseRdf(await response.text(), 'application/ld+json', BASE + profile);
  return quads.filter((quad) => quad.subject.value === webId && quad.predicate.value === AS_ALSO_KNOWN_AS).map((quad) => quad.object.value);
}

describe('--ap-nostr-pubkey', () => {
  it('puts as:alsoKnownAs <did:nostr:...> into the profile of a new pod', async () => {
    const test = makeApp({ apNostrPubkey: PUBKEY });
    const created = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    expect(created.status).toBe(201);
    expect(await alsoKnownAs(test, '/alice/', `${BASE}/alice/#me`)).toEqual([`did:nostr:${PUBKEY}`]);
  });

  it('puts it into the single-user pod made at startup', async () => {
    const test = makeApp({ apNostrPubkey: PUBKEY, singleUser: true });
    await test.app.init();
    expect(await alsoKnownAs(test, '/me/', `${BASE}/me/#me`)).toEqual([`did:nostr:${PUBKEY}`]);
  });

  it('leaves profiles without it when the option is not set', async () => {
    const test = makeApp();
    await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bob' }) });
    expect(await alsoKnownAs(test, '/bob/', `${BASE}/bob/#me`)).toEqual([]);
  });

  it('refuses a key that is not 64 lowercase hex characters', () => {
    for (const bad of ['abc', PUBKEY.toUpperCase(), `${PUBKEY}00`, 'npub1' + 'q'.repeat(58)]) {
      expect(() => makeApp({ apNostrPubkey: bad })).toThrow(ConfigError);
    }
    expect(() => makeApp({ apNostrPubkey: 'abc' })).toThrow(/--ap-nostr-pubkey "abc": expected a Nostr public key as 64 lowercase hex/);
  });

  it('stops the server at startup with a clear message', async () => {
    const result = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--ap-nostr-pubkey', 'xyz']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Invalid --ap-nostr-pubkey "xyz"');
  });
});
