/** Notifications in subdomain mode over real sockets: endpoints, topics and notifications on the pod's host. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localhostFetch, loopbackLookup } from '../support/localhost-hosts.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { Inbox, subscriptionService } from './support.ts';

let svc: RunningSvc;
let main: string;
let alice: string;
let token: string;
const inboxes: Inbox[] = [];

beforeAll(async () => {
  svc = await startSvc(['--subdomains', '--base-domain', 'localhost', '--notifications', '--quiet']);
  main = svc.base.replace('//127.0.0.1:', '//localhost:');
  alice = main.replace('//localhost:', '//alice.localhost:');
  const created = await localhostFetch(`${main}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  expect(created.status).toBe(201);
  token = ((await created.json()) as { token: string }).token;
});

afterAll(async () => {
  for (const inbox of inboxes) inbox.close();
  await svc.stop();
});

const put = (url: string, body = 'text') =>
  localhostFetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body });

function connect(url: string, protocol?: string): Inbox {
  const inbox = new Inbox(url, protocol, undefined, { lookup: loopbackLookup });
  inboxes.push(inbox);
  return inbox;
}

describe('notifications in subdomain mode (svc start --subdomains --base-domain localhost --notifications)', () => {
  it('solid-0.1: Updates-Via names the pod host, whose socket reports writes to the pod by their pod-host URLs', async () => {
    const head = await localhostFetch(`${alice}/public/`, { method: 'HEAD' });
    const updatesVia = head.headers.get('updates-via')!;
    expect(updatesVia).toBe(`${alice.replace(/^http/, 'ws')}/.notifications`);
    const inbox = connect(updatesVia, 'solid-0.1');
    await inbox.opened;
    expect(await inbox.next()).toBe('protocol solid-0.1');
    expect(await inbox.ask(`sub ${alice}/public/note.txt`)).toBe(`ack ${alice}/public/note.txt`);
    expect(await inbox.ask(`sub ${main}/alice/public/note.txt`)).toBe(`err ${main}/alice/public/note.txt forbidden`);
    expect((await put(`${alice}/public/note.txt`)).status).toBe(201);
    expect(await inbox.until((line) => line.startsWith('pub '))).toBe(`pub ${alice}/public/note.txt`);
  });

  it('WebSocketChannel2023: the pod host describes its subscription service; notifications name pod-host URLs', async () => {
    const description = await localhostFetch(`${alice}/.well-known/solid`, { headers: { accept: 'application/ld+json' } });
    const service = subscriptionService(await description.json(), 'WebSocketChannel2023');
    expect(service.startsWith(`${alice}/`)).toBe(true);
    const subscribed = await localhostFetch(service, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'http://www.w3.org/ns/solid/notifications#WebSocketChannel2023', topic: `${alice}/public/` }),
    });
    expect(subscribed.status).toBe(200);
    const channel = (await subscribed.json()) as { receiveFrom: string };
    expect(channel.receiveFrom.startsWith(alice.replace(/^http/, 'ws'))).toBe(true);
    const inbox = connect(channel.receiveFrom);
    await inbox.opened;
    expect((await put(`${alice}/public/added.txt`)).status).toBe(201);
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Add', object: `${alice}/public/added.txt`, target: `${alice}/public/` });
  });

  it('refuses an upgrade on the host of a pod that does not exist', async () => {
    const inbox = connect(main.replace('http://localhost:', 'ws://nobody.localhost:') + '/.notifications', 'solid-0.1');
    await expect(inbox.opened).rejects.toThrow('404');
  });
});
