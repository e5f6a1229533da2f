/**
 * The socket budget on a real `svc start`: every socket endpoint (solid-0.1 and channel notifications, the Nostr
 * relay, live reload) counts against one share per client address and one total, refusals come at the
 * handshake as problem documents, plain HTTP keeps being answered, and idle sockets are closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Inbox, WAIT_MS } from '../notifications/support.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

/** The status and problem document of a refused upgrade. */
function refusal(url: string, localAddress?: string): Promise<{ status: number; type: string; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { ...(localAddress && { localAddress }) });
    socket.once('open', () => reject(new Error(`${url} opened`)));
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, type: response.headers['content-type'] ?? '', body: JSON.parse(text) as Record<string, unknown> }));
    });
  });
}

async function plainGet(svc: RunningSvc): Promise<number> {
  const response = await fetch(`${svc.base}/`);
  await response.arrayBuffer();
  return response.status;
}

describe('the socket budget of a running server', () => {
  let svc: RunningSvc;
  let ws: string;
  const inboxes: Inbox[] = [];
  const opened = async (path: string, localAddress?: string) => {
    const inbox = new Inbox(`${ws}${path}`, undefined, undefined, localAddress ? { localAddress } : {});
    inboxes.push(inbox);
    await inbox.opened;
    return inbox;
  };

  beforeAll(async () => {
    svc = await startSvc(['--public', '--notifications', '--nostr', '--live-reload', '--max-sockets-per-address', '3', '--max-sockets', '5', '-q']);
    ws = svc.base.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    for (const inbox of inboxes) inbox.close();
    await svc?.stop();
  });

  it('shares one limit per address between every endpoint, refuses past it with 429, and still answers GET', async () => {
    const notifications = await opened('/.notifications');
    await opened('/relay');
    await opened('/.live-reload?path=/');
    for (const path of ['/.notifications', '/relay', '/.live-reload?path=/']) {
      const refused = await refusal(`${ws}${path}`);
      expect(refused.status).toBe(429);
      expect(refused.type).toBe('application/problem+json');
      expect(refused.body).toMatchObject({ type: 'urn:svc:problem:too-many-sockets', status: 429, limit: 3 });
    }
    expect(await plainGet(svc)).toBe(200);
    // A closed socket gives its place back.
    notifications.close();
    await notifications.closed;
    await expect.poll(async () => (await opened('/.notifications').then(() => 'open', () => 'refused')), { timeout: WAIT_MS, interval: 50 }).toBe('open');
  });

  it('refuses everyone with 503 once the server holds its total, and still answers GET', async () => {
    await opened('/relay', '127.0.0.2');
    await opened('/.notifications', '127.0.0.2');
    const refused = await refusal(`${ws}/relay`, '127.0.0.3');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ type: 'urn:svc:problem:socket-capacity', status: 503, limit: 5 });
    expect(await plainGet(svc)).toBe(200);
  });
});

describe('idle sockets on a running server (--socket-idle-timeout 1s)', () => {
  let svc: RunningSvc;
  let ws: string;
  const inboxes: Inbox[] = [];
  beforeAll(async () => {
    svc = await startSvc(['--public', '--notifications', '--nostr', '--socket-idle-timeout', '1s', '-q']);
    ws = svc.base.replace(/^http/, 'ws');
  });
  afterAll(async () => {
    for (const inbox of inboxes) inbox.close();
    await svc?.stop();
  });
  const inbox = (path: string, options: WebSocket.ClientOptions = {}) => {
    const opened = new Inbox(`${ws}${path}`, undefined, undefined, options);
    inboxes.push(opened);
    return opened;
  };

  it('closes sockets that subscribe to nothing (1001), drops those that stop answering pings, and keeps the others', async () => {
    const silentNotifications = inbox('/.notifications');
    const silentRelay = inbox('/relay');
    const subscribed = inbox('/.notifications');
    const relaySubscribed = inbox('/relay');
    const deaf = inbox('/.notifications', { autoPong: false });
    // Pings come every half of the idle time: four of them span it twice over.
    let pings = 0;
    const fourPings = new Promise<void>((resolve) => subscribed.socket.on('ping', () => ++pings === 4 && resolve()));
    await Promise.all([silentNotifications, silentRelay, subscribed, relaySubscribed, deaf].map((socket) => socket.opened));
    expect(await subscribed.ask(`sub ${svc.base}/`)).toBe('protocol solid-0.1');
    expect(await subscribed.next()).toBe(`ack ${svc.base}/`);
    expect(await deaf.ask(`sub ${svc.base}/`)).toBe('protocol solid-0.1');
    relaySubscribed.socket.send(JSON.stringify(['REQ', 'all', { kinds: [1] }]));
    await relaySubscribed.until((message) => message.startsWith('["EOSE"'));

    expect(await silentNotifications.closed).toEqual({ code: 1001, reason: 'idle: subscribed to nothing' });
    expect(await silentRelay.closed).toEqual({ code: 1001, reason: 'idle: subscribed to nothing' });
    // Terminated without a closing handshake.
    expect((await deaf.closed).code).toBe(1006);
    await fourPings;
    expect(subscribed.socket.readyState).toBe(WebSocket.OPEN);
    expect(relaySubscribed.socket.readyState).toBe(WebSocket.OPEN);
    const put = await fetch(`${svc.base}/note.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(put.status).toBe(201);
    expect(await subscribed.until((message) => message.startsWith('pub '))).toBe(`pub ${svc.base}/`);
  }, WAIT_MS * 3);
});
