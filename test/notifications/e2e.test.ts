import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { MAX_SUBSCRIPTIONS_PER_SOCKET, MAX_URL_LENGTH } from '../../src/notifications/solid01.ts';
import { Inbox, subscriptionService } from './support.ts';

let svc: RunningSvc;
let base: string;
let wsUrl: string;
const inboxes: Inbox[] = [];

beforeAll(async () => {
  svc = await startSvc(['--notifications', '--public', '--quiet', '--no-rate-limit']);
  base = svc.base;
  wsUrl = base.replace(/^http/, 'ws') + '/.notifications';
});

afterAll(async () => {
  for (const inbox of inboxes) inbox.close();
  await svc.stop();
});

/** A solid-0.1 client, greeted and subscribed to the given paths. */
async function subscriber(...paths: string[]): Promise<Inbox> {
  const inbox = new Inbox(wsUrl, 'solid-0.1');
  inboxes.push(inbox);
  await inbox.opened;
  expect(await inbox.next()).toBe('protocol solid-0.1');
  for (const path of paths) expect(await inbox.ask(`sub ${base}${path}`)).toBe(`ack ${base}${path}`);
  return inbox;
}

const put = (path: string, body = 'text', headers: Record<string, string> = {}) =>
  fetch(base + path, { method: 'PUT', headers: { 'content-type': 'text/plain', ...headers }, body });

/** The `pub` lines a write causes, in any order; waits for each, bounded. */
async function expectPubs(inbox: Inbox, paths: string[]): Promise<void> {
  const seen: string[] = [];
  while (seen.length < paths.length) seen.push(await inbox.until((message) => message.startsWith('pub ')));
  expect(seen.sort()).toEqual(paths.map((path) => `pub ${base}${path}`).sort());
}

describe('solid-0.1 over a real socket (svc start --notifications)', () => {
  it('advertises the endpoint in Updates-Via', async () => {
    const response = await fetch(base + '/', { method: 'HEAD' });
    expect(response.headers.get('updates-via')).toBe(wsUrl);
  });

  it('greets, acknowledges sub and unsub, and refuses other servers', async () => {
    const inbox = await subscriber('/verbs/x');
    expect(await inbox.ask(`unsub ${base}/verbs/x`)).toBe(`unsub ${base}/verbs/x`);
    expect(await inbox.ask('sub https://elsewhere.example/verbs/x')).toBe('err https://elsewhere.example/verbs/x forbidden');
  });

  it('answers malformed messages with err lines and keeps the socket working', async () => {
    const inbox = await subscriber();
    expect(await inbox.ask('hello')).toBe('err - malformed');
    expect(await inbox.ask('sub')).toBe('err - malformed');
    expect(await inbox.ask(`sub ${base}/a ${base}/b`)).toBe('err - malformed');
    expect(await inbox.ask(`publish ${base}/a`)).toBe(`err ${base}/a unknown-command`);
    expect(await inbox.ask('sub not a url')).toBe('err - malformed');
    expect(await inbox.ask('sub /relative/path')).toBe('err /relative/path invalid-uri');
    expect(await inbox.ask('x'.repeat(10_000))).toBe('err - too-long');
    inbox.socket.send(Buffer.from([1, 2, 3]));
    expect(await inbox.next()).toBe('err - malformed');
    expect(await inbox.ask(`sub ${base}/still/working`)).toBe(`ack ${base}/still/working`);
  });

  it('limits subscriptions per socket and URL length, answering with err and staying usable', async () => {
    const inbox = await subscriber();
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) inbox.socket.send(`sub ${base}/limit/r${i}`);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) expect(await inbox.next()).toBe(`ack ${base}/limit/r${i}`);
    expect(await inbox.ask(`sub ${base}/limit/one-too-many`)).toBe(`err ${base}/limit/one-too-many too-many-subscriptions`);
    expect(await inbox.ask(`sub ${base}/limit/r0`)).toBe(`ack ${base}/limit/r0`);
    expect(await inbox.ask(`unsub ${base}/limit/r1`)).toBe(`unsub ${base}/limit/r1`);
    expect(await inbox.ask(`sub ${base}/limit/one-too-many`)).toBe(`ack ${base}/limit/one-too-many`);
    expect(await inbox.ask(`sub ${base}/${'x'.repeat(MAX_URL_LENGTH)}`)).toBe('err - too-long');
    expect((await put('/limit/r2')).status).toBe(201);
    await expectPubs(inbox, ['/limit/r2']);
  });

  it('closes a socket that sends a frame beyond the size limit, and the server carries on', async () => {
    const inbox = await subscriber();
    inbox.socket.send('x'.repeat(100_000));
    expect((await inbox.closed).code).toBe(1009);
    await subscriber('/after/big');
  });

  it('PUT create and update: pub to the resource and its container', async () => {
    expect((await put('/put/doc')).status).toBe(201);
    const inbox = await subscriber('/put/doc', '/put/');
    expect((await put('/put/doc', 'changed')).status).toBe(204);
    await expectPubs(inbox, ['/put/doc', '/put/']);
    expect((await put('/put/new')).status).toBe(201);
    await expectPubs(inbox, ['/put/']);
  });

  it('implicitly created containers notify their parents too, but no further ancestor', async () => {
    expect((await put('/deep/seed')).status).toBe(201);
    const inbox = await subscriber('/', '/deep/', '/deep/a/', '/deep/a/b/', '/deep/a/b/c');
    expect((await put('/deep/a/b/c')).status).toBe(201);
    await expectPubs(inbox, ['/deep/', '/deep/a/', '/deep/a/b/', '/deep/a/b/c']);
    expect((await put('/deep/a/b/c', 'again')).status).toBe(204);
    // Only the resource and its direct parent: a later write elsewhere arrives next, not /deep/a/ or /.
    await expectPubs(inbox, ['/deep/a/b/c', '/deep/a/b/']);
    expect((await put('/deep/seed', 'again')).status).toBe(204);
    await expectPubs(inbox, ['/deep/']);
  });

  it('POST of a resource and of a container notifies the container', async () => {
    expect((await put('/post/seed')).status).toBe(201);
    const inbox = await subscriber('/post/');
    const created = await fetch(base + '/post/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'note' }, body: 'hi' });
    expect(created.status).toBe(201);
    await expectPubs(inbox, ['/post/']);
    const folder = await fetch(base + '/post/', {
      method: 'POST',
      headers: { slug: 'folder', link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' },
    });
    expect(folder.status).toBe(201);
    await expectPubs(inbox, ['/post/']);
  });

  it('DELETE notifies the resource and its container', async () => {
    expect((await put('/delete/doc')).status).toBe(201);
    const inbox = await subscriber('/delete/doc', '/delete/');
    expect((await fetch(base + '/delete/doc', { method: 'DELETE' })).status).toBe(204);
    await expectPubs(inbox, ['/delete/doc', '/delete/']);
  });

  it('PATCH notifies the resource and its container', async () => {
    const created = await fetch(base + '/patch/doc.ttl', {
      method: 'PUT',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ '@id': '#it', 'http://example.org/p': 'one' }),
    });
    expect(created.status).toBe(201);
    const inbox = await subscriber('/patch/doc.ttl', '/patch/');
    const patched = await fetch(base + '/patch/doc.ttl', {
      method: 'PATCH',
      headers: { 'content-type': 'application/sparql-update' },
      body: 'INSERT DATA { <#it> <http://example.org/q> "two" . }',
    });
    expect(patched.status).toBeLessThan(300);
    await expectPubs(inbox, ['/patch/doc.ttl', '/patch/']);
  });

  it('publishes nothing for a failed write', async () => {
    expect((await put('/fail/doc')).status).toBe(201);
    const inbox = await subscriber('/fail/doc', '/fail/');
    expect((await put('/fail/doc', 'x', { 'if-match': '"stale"' })).status).toBe(412);
    expect((await fetch(base + '/fail/', { method: 'DELETE' })).status).toBe(409);
    expect((await put('/fail/other')).status).toBe(201);
    // Deliveries keep the order of writes: had the failed ones published, their pubs would come first.
    expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${base}/fail/`);
    expect(inbox.pending()).toEqual([]);
  });
});

describe('solid-0.1 with --notifications-auth over a real socket', () => {
  let secured: RunningSvc;
  beforeAll(async () => {
    secured = await startSvc(['--notifications', '--notifications-auth', '--quiet', '--no-rate-limit']);
  });
  afterAll(async () => {
    await secured.stop();
  });

  async function greeted(url: string, headers?: Record<string, string>): Promise<Inbox> {
    const inbox = new Inbox(url, 'solid-0.1', headers);
    inboxes.push(inbox);
    await inbox.opened;
    expect(await inbox.next()).toBe('protocol solid-0.1');
    return inbox;
  }

  it('needs Read for the token of the upgrade request; pod creation notifies the root container', async () => {
    const securedWs = secured.base.replace(/^http/, 'ws') + '/.notifications';
    const anonymous = await greeted(securedWs);
    expect(await anonymous.ask(`sub ${secured.base}/`)).toBe(`ack ${secured.base}/`);

    const pod = await fetch(secured.base + '/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    expect(pod.status).toBe(201);
    const { token } = await pod.json();
    expect(await anonymous.until((message) => message.startsWith('pub '))).toBe(`pub ${secured.base}/`);

    const secret = `${secured.base}/alice/private/doc`;
    const write = (auth: boolean) =>
      fetch(secret, { method: 'PUT', headers: { 'content-type': 'text/plain', ...(auth && { authorization: `Bearer ${token}` }) }, body: 'secret' });
    expect((await write(true)).status).toBe(201);
    expect(await anonymous.ask(`sub ${secret}`)).toBe(`err ${secret} forbidden`);

    const byHeader = await greeted(securedWs, { authorization: `Bearer ${token}` });
    expect(await byHeader.ask(`sub ${secret}`)).toBe(`ack ${secret}`);
    const byQuery = await greeted(`${securedWs}?access_token=${encodeURIComponent(token)}`);
    expect(await byQuery.ask(`sub ${secret}`)).toBe(`ack ${secret}`);

    expect((await write(false)).status).toBe(401);
    expect((await write(true)).status).toBe(204);
    // The refused write came first: had it published, its pub would arrive before this one.
    expect(await byHeader.next()).toBe(`pub ${secret}`);
    expect(await byQuery.next()).toBe(`pub ${secret}`);
  });
});

describe('WebSocketChannel2023 over a real socket', () => {
  async function channelFor(topic: string): Promise<Inbox> {
    const description = await fetch(base + '/.well-known/solid', { headers: { accept: 'application/ld+json' } });
    const service = subscriptionService(await description.json(), 'WebSocketChannel2023');
    const response = await fetch(service, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({
        '@context': ['https://www.w3.org/ns/solid/notification/v1'],
        type: 'http://www.w3.org/ns/solid/notifications#WebSocketChannel2023',
        topic: base + topic,
      }),
    });
    expect(response.status).toBe(200);
    const channel = await response.json();
    // No subprotocol: the spec's example offers the channel-type IRI, which is not a valid protocol token.
    const inbox = new Inbox(channel.receiveFrom);
    inboxes.push(inbox);
    await inbox.opened;
    return inbox;
  }

  it('is discoverable from any resource through the storage description link', async () => {
    const link = (await fetch(base + '/', { method: 'HEAD' })).headers.get('link') ?? '';
    expect(link).toContain(`<${base}/.well-known/solid>; rel="http://www.w3.org/ns/solid/terms#storageDescription"`);
  });

  it('reports Create, Update and Delete of a resource with state and published', async () => {
    const inbox = await channelFor('/channel/doc');
    const created = await put('/channel/doc');
    const create = JSON.parse(await inbox.next());
    expect(create).toMatchObject({ type: 'Create', object: `${base}/channel/doc`, state: created.headers.get('etag') });
    expect(create['@context']).toContain('https://www.w3.org/ns/activitystreams');
    expect(new Date(create.published).toISOString()).toBe(create.published);
    const updated = await put('/channel/doc', 'changed');
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Update', object: `${base}/channel/doc`, state: updated.headers.get('etag') });
    await fetch(base + '/channel/doc', { method: 'DELETE' });
    const deleted = JSON.parse(await inbox.next());
    expect(deleted).toMatchObject({ type: 'Delete', object: `${base}/channel/doc` });
    expect(deleted.state).toBeUndefined();
  });

  it('reports Add and Remove on a container with the container as target', async () => {
    expect((await put('/members/seed')).status).toBe(201);
    const inbox = await channelFor('/members/');
    await put('/members/new');
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Add', object: `${base}/members/new`, target: `${base}/members/` });
    await fetch(base + '/members/new', { method: 'DELETE' });
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Remove', object: `${base}/members/new`, target: `${base}/members/` });
  });

  it('refuses a receiveFrom URL with an unknown token', async () => {
    const inbox = new Inbox(base.replace(/^http/, 'ws') + '/.notifications/WebSocketChannel2023/?auth=guess');
    await expect(inbox.opened).rejects.toThrow('404');
  });
});

describe('shutdown', () => {
  it('closes open sockets with 1001 and exits cleanly', async () => {
    const own = await startSvc(['--notifications', '--public', '--quiet', '--no-rate-limit']);
    const inbox = new Inbox(own.base.replace(/^http/, 'ws') + '/.notifications');
    await inbox.opened;
    expect(await inbox.next()).toBe('protocol solid-0.1');
    const code = await own.stop();
    expect((await inbox.closed).code).toBe(1001);
    expect(code).toBe(0);
  });
});
