import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { attachWebSockets, type WebSockets } from '../../runtimes/node/websocket.ts';
import { makeApp } from '../support/app.ts';
import { Inbox, WAIT_MS } from './support.ts';

/** Short, so a test sees several ping rounds; how long a round takes is never asserted. */
const PING_INTERVAL_MS = 40;

let server: Server;
let webSockets: WebSockets;

/** The Node transport on a loopback port in front of an app with --notifications; returns its ws:// base. */
async function listen(): Promise<string> {
  const { app } = makeApp({ public: true, notifications: true });
  server = createServer((req, res) => res.writeHead(200).end(`ordinary ${req.method} ${req.url}`));
  webSockets = attachWebSockets(server, app.upgradeWebSocket!, false, () => {}, PING_INTERVAL_MS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  webSockets.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** An HTTP/1.1 request offering `Upgrade: h2c`, as `curl --http2` sends on http:// URLs. */
function h2cRequest(base: string, method: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': '' };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const outgoing = httpRequest(`${base.replace(/^ws/, 'http')}/doc`, { method, headers }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the Node WebSocket transport', () => {
  it('answers other upgrades (curl --http2 on http) as ordinary requests, refusing those with a body', async () => {
    const base = await listen();
    expect(await h2cRequest(base, 'GET')).toEqual({ status: 200, text: 'ordinary GET /doc' });
    const withBody = await h2cRequest(base, 'PUT', 'content');
    expect(withBody.status).toBe(501);
    expect(JSON.parse(withBody.text).detail).toContain('without the Upgrade header');
  });

  it('drops a socket that stops answering pings', async () => {
    const base = await listen();
    const silent = new WebSocket(`${base}/.notifications`, { autoPong: false });
    const closed = new Promise<number>((resolve) => silent.once('close', resolve));
    // 1006: terminated without a closing handshake.
    expect(await closed).toBe(1006);
  });

  it('keeps a socket that answers pings, and it keeps working', async () => {
    const base = await listen();
    const inbox = new Inbox(`${base}/.notifications`);
    let pings = 0;
    const threePings = new Promise<void>((resolve) => inbox.socket.on('ping', () => ++pings === 3 && resolve()));
    await inbox.opened;
    expect(await inbox.next()).toBe('protocol solid-0.1');
    await threePings;
    expect(inbox.socket.readyState).toBe(WebSocket.OPEN);
    const resource = `${base.replace(/^ws/, 'http')}/x`;
    expect(await inbox.ask(`sub ${resource}`)).toBe(`ack ${resource}`);
    inbox.close();
  });

  it('answers upgrades the app does not accept with the app\'s status', async () => {
    const base = await listen();
    await expect(new Inbox(`${base}/elsewhere`).opened).rejects.toThrow('upgrade refused: 404');
    await expect(new Inbox(`${base}/.notifications/WebSocketChannel2023/?auth=unknown`).opened).rejects.toThrow('upgrade refused: 404');
  });
}, WAIT_MS * 2);
