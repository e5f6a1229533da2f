import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/resolve.ts';
import { ARCHIVE_CONTAINER } from '../../src/nostr/archive.ts';
import { BASE, makeApp } from '../support/app.ts';
import { FakeSocket } from '../notifications/support.ts';
import { Author } from './support.ts';

const upgradeAt = (path: string) => new Request(BASE + path, { headers: { upgrade: 'websocket' } });

describe('the nostr feature in the app', () => {
  it('is absent without --nostr', async () => {
    const { app, request } = makeApp();
    expect(app.upgradeWebSocket).toBeUndefined();
    expect((await request('/relay', { headers: { accept: 'application/nostr+json' } })).headers.get('content-type')).not.toBe('application/nostr+json');
  });

  it('claims WebSocket upgrades at --nostr-path only', async () => {
    const { app } = makeApp({ nostr: true, nostrPath: '/nostr/v1' });
    expect(await app.upgradeWebSocket!(upgradeAt('/nostr/v1'))).toHaveProperty('accept');
    expect(await app.upgradeWebSocket!(upgradeAt('/relay'))).toBeNull();
    expect(await app.upgradeWebSocket!(upgradeAt('/nostr/v1/'))).toBeNull();
  });

  it('refuses a --nostr-path that is no plain path', () => {
    for (const nostrPath of ['relay', '/', '/relay/', '/a//b', '/.server/relay', '/a/../b', '/:id', '/re lay']) {
      expect(() => makeApp({ nostr: true, nostrPath }), nostrPath).toThrow(ConfigError);
    }
  });

  it('keeps --nostr-persist events in the storage, out of reach over HTTP', async () => {
    const { app, storage, request } = makeApp({ nostr: true, nostrPersist: true, public: true });
    await app.init();
    const answer = await app.upgradeWebSocket!(upgradeAt('/relay'));
    const socket = new FakeSocket();
    socket.handlers = (answer as { accept: (socket: FakeSocket) => FakeSocket['handlers'] }).accept(socket);
    const event = new Author().sign();
    socket.handlers!.message(JSON.stringify(['EVENT', event]));
    expect(JSON.parse(await socket.waitFor((line) => line.startsWith('["OK"')))).toEqual(['OK', event.id, true, '']);
    expect(await storage.head(`${ARCHIVE_CONTAINER}${event.id}.json`)).not.toBeNull();
    expect((await request(`${ARCHIVE_CONTAINER}${event.id}.json`)).status).toBe(404);
  });
});
