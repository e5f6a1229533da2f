/** What the Mastodon API tests on ActivityPub share: a single-user server whose owner has an IdP account and app tokens. */
import { expect } from 'vitest';
import type { OutboundFetch } from '../../src/platform.ts';
import { noOutbound, offlinePlatform as platform, storageWithActorKeys } from '../activitypub/offline.ts';
import { json, PASSWORD } from '../idp/support.ts';
import { OOB, outOfBandCode, registerApp, tokenRequest, type RegisteredApp } from '../oauth/support.ts';
import { makeApp, type TestApp } from '../support/app.ts';

export type SocialApp = TestApp & { tokenFor(scope: string): Promise<string>; ownerToken: string; client: RegisteredApp };

/** A single-user server with the IdP and ActivityPub, its owner `alice` registered at the IdP. */
export async function socialApp(fetch: OutboundFetch = noOutbound, flags: Record<string, unknown> = {}, now?: () => number): Promise<SocialApp> {
  const storage = await storageWithActorKeys();
  // A clock that moves on each time it is read, so posts made in one millisecond still come in order.
  let clock = Date.now();
  const app = makeApp({ idp: true, activitypub: true, singleUser: true, singleUserName: '', apUsername: 'alice', ...flags }, storage, { ...platform, fetch, now: now ?? (() => ++clock) });
  const { token } = await app.app.singleUserPod!();
  expect((await app.request('/idp/register', json({ email: 'alice@example.org', password: PASSWORD }, { authorization: `Bearer ${token}` }))).status).toBe(201);
  const client = await registerApp(app);
  const tokenFor = async (scope: string) => {
    const code = await outOfBandCode(app, client, { scope });
    const answer = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret });
    return (await answer.json()).access_token as string;
  };
  return Object.assign(app, { tokenFor, ownerToken: token!, client });
}
