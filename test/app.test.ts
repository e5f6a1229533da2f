import { describe, expect, it } from 'vitest';
import { SOCKET_SWEEP } from '../src/app.ts';
import type { SocketLike } from '../src/notifications/socket.ts';
import { CLOSE_IDLE } from '../src/sockets/guard.ts';
import { BASE, makeApp } from './support/app.ts';

describe('queued work a runtime runs (Platform.scheduleDue, App.runDue)', () => {
  it('is asked for by name, and a run does only the work it names', async () => {
    let now = 1_000_000;
    const asked: string[] = [];
    const { app } = makeApp({ nostr: true, socketIdleTimeout: '10s' }, undefined, { now: () => now, scheduleDue: (_inMs, work) => asked.push(work) });
    await app.init();
    const answer = await app.upgradeWebSocket!(new Request(`${BASE}/relay`, { headers: { upgrade: 'websocket' } }));
    if (!answer || !('accept' in answer)) throw new Error('the relay refused the upgrade');
    const closes: number[] = [];
    const raw: SocketLike = { send: () => {}, close: (code) => closes.push(code) };
    answer.accept(raw);
    expect(asked).toEqual([SOCKET_SWEEP]);

    // The socket subscribes to nothing and says nothing: it is idle once the time has passed.
    now += 11_000;
    expect(await app.runDue!(['activitypub'])).toEqual([]);
    expect(closes).toEqual([]);
    await app.runDue!([SOCKET_SWEEP]);
    expect(closes).toEqual([CLOSE_IDLE]);
  });
});
