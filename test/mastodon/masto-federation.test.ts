/**
 * The masto client library against two real svc processes with the IdP and ActivityPub on loopback (the
 * private-address rule lifted): bob's server follows alice's; masto logs in to alice's through OAuth (the
 * out-of-band code), sees bob's follow among its notifications, posts, pages the home timeline by its `Link`
 * header, and the posts reach bob's server, where its public timeline shows them, until alice deletes one.
 */
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../idp/support.ts';
import { OOB, outOfBandCode } from '../oauth/support.ts';
import { eventually } from '../support/eventually.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const ARGS = ['--idp', '--activitypub', '--single-user', '--single-user-name', '', '--allow-private-fetch', '--quiet'];

interface Pod {
  svc: RunningSvc;
  token: string;
}

async function startPod(name: string): Promise<Pod> {
  const svc = await startSvc([...ARGS, '--ap-username', name, '--ap-display-name', name.toUpperCase()]);
  const token = /owner token \(send it[^\n]*\n(\S+)/.exec(svc.output())![1]!;
  return { svc, token };
}

let alice: Pod;
let bob: Pod;

beforeAll(async () => {
  // One after the other: two servers starting at once on a loaded machine may miss startSvc's start deadline.
  alice = await startPod('alice');
  bob = await startPod('bob');
  const owner = await fetch(`${alice.svc.base}/idp/register`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) });
  if (owner.status !== 201) throw new Error(`${owner.status} ${await owner.text()}`);
  const follow = await fetch(`${bob.svc.base}/profile/card/outbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json', authorization: `Bearer ${bob.token}` }, body: JSON.stringify({ type: 'Follow', object: `${alice.svc.base}/profile/card` }) });
  if (follow.status !== 201) throw new Error(`${follow.status} ${await follow.text()}`);
}, 120_000);

afterAll(async () => {
  await alice?.svc.stop();
  await bob?.svc.stop();
});

describe('masto on a federated svc', () => {
  it('logs in, posts, pages the home timeline by Link, and the posts reach the follower\'s server', async () => {
    const base = alice.svc.base;
    const followers = createRestAPIClient({ url: base });
    const followerList = await eventually(async () => {
      const list = await followers.v1.accounts.$select('alice').followers.list();
      return list.length === 1 ? list : undefined;
    }, 'bob to follow alice');
    expect(followerList[0]).toMatchObject({ username: 'bob', acct: `bob@${new URL(bob.svc.base).host}`, url: `${bob.svc.base}/profile/card` });

    const registered = await createRestAPIClient({ url: base }).v1.apps.create({ clientName: 'masto poster', redirectUris: OOB, scopes: 'read write' });
    const over = { request: (path: string, init: RequestInit = {}) => fetch(base + path, { ...init, redirect: 'manual' }) };
    const code = await outOfBandCode(over, { client_id: registered.clientId!, client_secret: registered.clientSecret! });
    const token = await createOAuthAPIClient({ url: base }).token.create({ grantType: 'authorization_code', clientId: registered.clientId!, clientSecret: registered.clientSecret!, redirectUri: OOB, code });
    const masto = createRestAPIClient({ url: base, accessToken: token.accessToken });

    const [followed] = await masto.v1.notifications.list();
    expect(followed).toMatchObject({ type: 'follow', status: null, account: { acct: `bob@${new URL(bob.svc.base).host}` } });

    const posted = [];
    for (const text of ['one', 'two', 'three']) posted.push(await masto.v1.statuses.create({ status: `hello ${text}` }));
    expect(posted[0]).toMatchObject({ content: '<p>hello one</p>', visibility: 'public', account: { username: 'alice' } });
    expect((await masto.v1.statuses.$select(posted[1]!.id).fetch()).content).toBe('<p>hello two</p>');

    const pages: string[][] = [];
    for await (const page of masto.v1.timelines.home.list({ limit: 2 })) pages.push(page.map((status) => status.content));
    expect(pages).toEqual([['<p>hello three</p>', '<p>hello two</p>'], ['<p>hello one</p>'], []]);

    const atBob = createRestAPIClient({ url: bob.svc.base });
    const arrived = await eventually(async () => {
      const contents = (await atBob.v1.timelines.public.list()).map((status) => status.content);
      return contents.length === 3 ? contents : undefined;
    }, 'the posts to reach bob');
    expect(arrived).toEqual(['<p>hello three</p>', '<p>hello two</p>', '<p>hello one</p>']);
    const copy = (await atBob.v1.timelines.public.list({ limit: 1 }))[0]!;
    expect(copy).toMatchObject({ uri: posted[2]!.uri, account: { username: 'alice', acct: `alice@${new URL(base).host}`, displayName: 'ALICE' } });

    await masto.v1.statuses.$select(posted[1]!.id).remove();
    await eventually(async () => ((await atBob.v1.timelines.public.list()).length === 2 ? true : undefined), 'the Delete to reach bob');

    const missing = await masto.v1.statuses.$select(posted[1]!.id).fetch().catch((error: unknown) => error);
    expect(missing).toMatchObject({ statusCode: 404 });
    const readOnly = await createOAuthAPIClient({ url: base }).token.create({
      grantType: 'authorization_code',
      clientId: registered.clientId!,
      clientSecret: registered.clientSecret!,
      redirectUri: OOB,
      code: await outOfBandCode(over, { client_id: registered.clientId!, client_secret: registered.clientSecret! }, { scope: 'read' }),
    });
    const refused = await createRestAPIClient({ url: base, accessToken: readOnly.accessToken }).v1.statuses.create({ status: 'no' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ statusCode: 403, message: 'This action is outside the authorized scopes' });
  });
});
