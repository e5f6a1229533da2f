import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SocketHandlers, SocketLike } from '../../src/notifications/socket.ts';
import { SocketBudget } from '../../src/sockets/budget.ts';
import { CLOSE_IDLE, SocketGuard, type Acceptance } from '../../src/sockets/guard.ts';
import { FakeSocket, WAIT_MS } from '../notifications/support.ts';

interface Opened {
  /** The runtime's socket. */
  raw: FakeSocket;
  /** The socket as the feature sees it, through the guard. */
  socket: SocketLike;
  handlers: SocketHandlers;
}

/** Opens a socket through the guard for a feature whose socket listens for something only while `listening` says so. */
function open(guard: SocketGuard, budget: SocketBudget, listening: () => boolean = () => false): Opened {
  const admission = budget.admit('192.0.2.1');
  if ('refuse' in admission) throw new Error('refused');
  let socket: SocketLike | undefined;
  const acceptance: Acceptance = {
    accept: (given) => {
      socket = given;
      return { message: () => {}, closed: () => {}, subscribed: listening };
    },
  };
  const raw = new FakeSocket();
  const handlers = guard.guard(acceptance, admission.ticket).accept(raw);
  raw.handlers = handlers;
  return { raw, socket: socket!, handlers };
}

describe('the socket guard', () => {
  afterEach(() => vi.useRealTimers());

  it('closes a socket that listens for nothing once it has been silent for the idle time, and gives its place back', async () => {
    const guard = new SocketGuard({ idleMs: 50, maxBufferedBytes: 1 << 20, now: Date.now });
    const budget = new SocketBudget({ perAddress: 5, total: 5 });
    const { raw } = open(guard, budget);
    await vi.waitFor(() => expect(raw.closedWith).toEqual({ code: CLOSE_IDLE, reason: 'idle: subscribed to nothing' }), { timeout: WAIT_MS, interval: 10 });
    expect(budget.open).toBe(0);
    expect(guard.open).toBe(0);
  });

  it('keeps a socket that listens for something, and one that keeps talking', () => {
    vi.useFakeTimers();
    let now = 0;
    const guard = new SocketGuard({ idleMs: 1000, maxBufferedBytes: 1 << 20, now: () => now });
    const budget = new SocketBudget({ perAddress: 5, total: 5 });
    let listening = true;
    const subscribed = open(guard, budget, () => listening);
    const talking = open(guard, budget);
    for (let step = 0; step < 10; step++) {
      now += 500;
      talking.handlers.message('still here');
      vi.advanceTimersByTime(500);
    }
    expect(subscribed.raw.closedWith).toBeNull();
    expect(talking.raw.closedWith).toBeNull();
    // Once it listens for nothing, the subscribed socket has been silent all along.
    listening = false;
    now += 500;
    vi.advanceTimersByTime(500);
    expect(subscribed.raw.closedWith?.code).toBe(CLOSE_IDLE);
    expect(talking.raw.closedWith).toBeNull();
    expect(budget.open).toBe(1);
  });

  it('gives the place back when the handshake fails', () => {
    const guard = new SocketGuard({ idleMs: 1000, maxBufferedBytes: 1 << 20, now: Date.now });
    const budget = new SocketBudget({ perAddress: 1, total: 5 });
    const admission = budget.admit('192.0.2.1');
    if ('refuse' in admission) throw new Error('refused');
    guard.guard({ accept: () => ({ message: () => {}, closed: () => {} }) }, admission.ticket).cancel!();
    expect(budget.open).toBe(0);
  });

  it('carries a hibernated connection on through the feature\'s resume, watched and holding the ticket, its state kept through the guard', () => {
    const guard = new SocketGuard({ idleMs: 1000, maxBufferedBytes: 1 << 20, now: Date.now });
    const budget = new SocketBudget({ perAddress: 1, total: 5 });
    const admission = budget.admit('192.0.2.1');
    if ('refuse' in admission) throw new Error('refused');
    const resumed: unknown[] = [];
    const acceptance = guard.guard(
      {
        accept: () => ({ message: () => {}, closed: () => {} }),
        resume: (socket, state) => {
          resumed.push(state);
          socket.remember!({ kept: true });
          return { message: () => {}, closed: () => {}, subscribed: () => true };
        },
      },
      admission.ticket,
    );
    const remembered: unknown[] = [];
    const raw = Object.assign(new FakeSocket(), { remember: (state: unknown) => void remembered.push(state) });
    raw.handlers = acceptance.resume!(raw, { subscriptions: 1 });
    expect(resumed).toEqual([{ subscriptions: 1 }]);
    expect(remembered).toEqual([{ kept: true }]);
    expect([guard.open, budget.openFrom('192.0.2.1')]).toEqual([1, 1]);
    raw.close(1000, 'bye');
    expect([guard.open, budget.open]).toEqual([0, 0]);
  });

  it('with `schedule`, sweeps only when the runtime runs it (no timer), counting from when a resumed socket was last heard', () => {
    vi.useFakeTimers();
    let now = 100_000;
    const asked: number[] = [];
    const guard = new SocketGuard({ idleMs: 1000, maxBufferedBytes: 1 << 20, now: () => now, schedule: (inMs) => void asked.push(inMs) });
    const budget = new SocketBudget({ perAddress: 5, total: 5 });
    const fresh = open(guard, budget);
    expect(asked).toEqual([1000]);
    expect(vi.getTimerCount()).toBe(0);
    // Heard again: the sweep already asked for comes first, so the runtime is not asked again.
    now += 400;
    fresh.handlers.message('hello');
    expect(asked).toEqual([1000]);
    // A socket carried on through hibernation, last heard 900 ms ago: a sweep sooner than the one asked for.
    const admission = budget.admit('192.0.2.1');
    if ('refuse' in admission) throw new Error('refused');
    const resumedRaw = Object.assign(new FakeSocket(), { lastHeard: now - 900 });
    resumedRaw.handlers = guard.guard({ accept: () => ({ message: () => {}, closed: () => {} }), resume: () => ({ message: () => {}, closed: () => {}, subscribed: () => false }) }, admission.ticket).resume!(resumedRaw, {});
    expect(asked).toEqual([1000, 100]);
    now += 100;
    expect(guard.sweep()).toBe(900);
    expect(resumedRaw.closedWith).toEqual({ code: CLOSE_IDLE, reason: 'idle: subscribed to nothing' });
    expect(fresh.raw.closedWith).toBeNull();
    now += 900;
    expect(guard.sweep()).toBeNull();
    expect(fresh.raw.closedWith?.code).toBe(CLOSE_IDLE);
    expect([guard.open, budget.open]).toEqual([0, 0]);
  });

  it('keeps the unsent bytes of all sockets under the bound by dropping the socket furthest behind', () => {
    const guard = new SocketGuard({ idleMs: 60_000, maxBufferedBytes: 100_000, now: Date.now });
    const budget = new SocketBudget({ perAddress: 0, total: 0 });
    const [slow, slower, reading] = [open(guard, budget, () => true), open(guard, budget, () => true), open(guard, budget, () => true)];
    const terminated: FakeSocket[] = [];
    for (const { raw } of [slow, slower, reading]) Object.assign(raw, { terminate: () => void terminated.push(raw) });
    // A socket that does not read keeps what it is sent; one that reads has nothing left over.
    for (const { raw } of [slow, slower]) {
      const send = raw.send.bind(raw);
      raw.send = (text) => {
        send(text);
        raw.bufferedAmount += text.length;
      };
    }
    const chunk = 'x'.repeat(10_000);
    for (let i = 0; i < 4; i++) slow.socket.send(chunk);
    for (let i = 0; i < 5; i++) slower.socket.send(chunk);
    for (let i = 0; i < 20; i++) reading.socket.send(chunk);
    expect([slow.raw.closedWith, slower.raw.closedWith, reading.raw.closedWith]).toEqual([null, null, null]);
    // 90 KB held: 20 KB more would pass 100 KB, so the socket furthest behind goes, whoever is sending.
    reading.socket.send(chunk + chunk);
    expect(slower.raw.closedWith).toEqual({ code: 1013, reason: 'reader too slow' });
    expect(terminated).toEqual([slower.raw]);
    expect(slow.raw.closedWith).toBeNull();
    expect(reading.raw.sent.at(-1)).toHaveLength(20_000);
    // Its bytes no longer count: 40 KB held, so 50 KB more fits.
    slow.socket.send(chunk.repeat(5));
    expect(slow.raw.closedWith).toBeNull();
    // A drained socket is seen as drained when the total is read again.
    slow.raw.bufferedAmount = 0;
    reading.socket.send(chunk.repeat(9));
    expect(slow.raw.closedWith).toBeNull();
    expect(reading.raw.closedWith).toBeNull();
  });

  it('closes one socket that falls more than 1 MB behind, however much room the total has', () => {
    const guard = new SocketGuard({ idleMs: 60_000, maxBufferedBytes: 1 << 30, now: Date.now });
    const { raw, socket } = open(guard, new SocketBudget({ perAddress: 0, total: 0 }), () => true);
    raw.bufferedAmount = 1024 * 1024 + 1;
    socket.send('one more');
    expect(raw.closedWith?.code).toBe(1013);
    expect(raw.sent).toEqual([]);
  });
});
