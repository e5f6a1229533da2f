/**
 * HTML from other servers through the Mastodon API: a Note signed by an actor of a real fedify server on
 * loopback (test/activitypub/fedify-peer.ts), sent to a server in this process, comes out as Mastodon keeps
 * remote HTML: mentions, hashtags and links kept, scripts, handlers and script links gone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { useFedifyPeer } from '../activitypub/fedify-peer.ts';
import { deliverSigned, noteCreate } from '../activitypub/signed.ts';
import { bearer } from '../oauth/support.ts';
import { BASE } from '../support/app.ts';
import { socialApp, type SocialApp } from './support.ts';

const ACTOR = `${BASE}/profile/card`;
const HOSTILE = [
  '<p><span class="h-card" translate="no"><a href="http://pod.test/profile/card" class="u-url mention" onmouseover="alert(0)">@<span>alice</span></a></span> look',
  '<script>alert(1)</script><img src=x onerror=alert(2)>',
  '<a href="javascript:alert(3)">here</a> <a href="https://example.org/tags/pods" class="mention hashtag" rel="tag">#<span>pods</span></a>',
  '<svg onload=alert(4)><style>*{}</style></svg><iframe src="javascript:alert(5)"></iframe></p>',
].join('');
const SAFE =
  '<p><span class="h-card" translate="no"><a href="http://pod.test/profile/card" rel="nofollow noopener" target="_blank" class="u-url mention">@<span>alice</span></a></span> look' +
  '<a>here</a> <a href="https://example.org/tags/pods" rel="nofollow noopener" target="_blank" class="mention hashtag">#<span>pods</span></a></p>';

/** Nothing in `text` that a browser would run. */
function expectNothingToRun(text: string): void {
  for (const sign of ['<script', 'onerror', 'onload', 'onmouseover', 'javascript:', '<img', '<svg', '<iframe', '<style']) expect(text, sign).not.toContain(sign);
}

const fedifyPeer = useFedifyPeer();

describe('remote HTML in the Mastodon API', { timeout: 60_000 }, () => {
  let app: SocialApp;
  let token: string;

  beforeAll(async () => {
    app = await socialApp(nodeOutboundFetch({ allowPrivate: true }));
    token = await app.tokenFor('read write');
  });

  it('a script in a remote Note never comes out of the timelines, the status, the notifications or the stored copy', async () => {
    const peer = fedifyPeer();
    const mine = await (await app.request('/api/v1/statuses', bearer(token, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'mine' }) }))).json();
    const create = noteCreate(peer, 'hostile', HOSTILE, {
      inReplyTo: mine.uri,
      summary: '<b>cw</b><script>alert(6)</script>',
      contentMap: { en: HOSTILE },
      tag: [{ type: 'Mention', href: ACTOR, name: '@alice' }],
    });
    expect((await deliverSigned(app, peer, create)).status).toBe(202);

    const [status] = await (await app.request('/api/v1/timelines/public?remote=true')).json();
    expect(status.content).toBe(SAFE);
    const answers = [
      await app.request('/api/v1/timelines/public'),
      await app.request('/api/v1/timelines/home', bearer(token)),
      await app.request(`/api/v1/statuses/${status.id}`),
      await app.request('/api/v1/notifications', bearer(token)),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(text).toContain('class=\\"u-url mention\\"');
      expectNothingToRun(text);
    }
    const [path] = await recordPaths(app.storage, INBOX_CONTAINER);
    const stored = await app.request(path!, bearer(app.ownerToken));
    expect(stored.status).toBe(200);
    const copy = await stored.json();
    expect(copy.object.content).toBe(SAFE);
    expectNothingToRun(JSON.stringify(copy));

    // An edit by its author is made safe the same way.
    const update = { id: `${peer.actorId}/updates/1`, type: 'Update', actor: peer.actorId, object: { ...(create.object as object), content: `${HOSTILE}<p>edited</p>`, updated: '2026-02-01T00:00:00Z' } };
    expect((await deliverSigned(app, peer, update)).status).toBe(202);
    const edited = await (await app.request(`/api/v1/statuses/${status.id}`)).text();
    expect(edited).toContain('edited');
    expectNothingToRun(edited);
  });

  it('HTML stored before it was made safe on the way in is made safe on the way out', async () => {
    const remote = 'https://remote.example/users/dave';
    const activity = { id: `${remote}/statuses/1/activity`, type: 'Create', actor: remote, object: { id: `${remote}/statuses/1`, type: 'Note', attributedTo: remote, content: HOSTILE, published: '2026-01-02T00:00:00Z' } };
    await app.storage.put(`${INBOX_CONTAINER}stored-before.json`, JSON.stringify(activity), { contentType: 'application/ld+json' });
    const text = await (await app.request('/api/v1/timelines/public?remote=true')).text();
    expect(text).toContain('remote.example/users/dave/statuses/1');
    expectNothingToRun(text);
  });
});
