import { describe, expect, it } from 'vitest';
import type { UpgradeAnswer } from '../../src/notifications/socket.ts';
import { FakeSocket } from '../notifications/support.ts';
import { BASE } from '../support/app.ts';
import { podWorld, putText } from '../wac/pods.ts';

describe('remoteStorage and notifications', () => {
  it('announces remoteStorage writes and deletes to subscribers of the same files in the pod', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const answer = (await world.app.upgradeWebSocket!(new Request(`${BASE}/.notifications`, { headers: { authorization: `Bearer ${world.tokens.alice}` } }))) as UpgradeAnswer;
    if (!answer || 'refuse' in answer) throw new Error('upgrade refused');
    const socket = new FakeSocket();
    socket.handlers = answer.accept(socket);
    for (const path of ['/alice/remotestorage/notes/a', '/alice/remotestorage/notes/']) {
      socket.handlers.message(`sub ${BASE}${path}`);
      await socket.waitFor((line) => line === `ack ${BASE}${path}`);
    }
    expect((await world.as('alice', '/storage/alice/notes/a', putText('one'))).status).toBe(201);
    await socket.waitFor((line) => line === `pub ${BASE}/alice/remotestorage/notes/a`);
    await socket.waitFor((line) => line === `pub ${BASE}/alice/remotestorage/notes/`);
    socket.sent.length = 0;
    expect((await world.as('alice', '/storage/alice/notes/a', { method: 'DELETE' })).status).toBe(200);
    await socket.waitFor((line) => line === `pub ${BASE}/alice/remotestorage/notes/a`);
  });
});
