import { describe, expect, it } from 'vitest';
import type { DurableObjectState, HibernatableWebSocket } from 'cloudflare:workers';
import { HibernatingSockets, type Resumable } from '../../runtimes/workers/hibernating-sockets.ts';

/** The few members of the object's state and socket that `accept` uses; workerd's own run in workers-streaming.test.ts. */
function objectState(): DurableObjectState {
  return {
    storage: { sql: { exec: () => ({ toArray: () => [] }) } },
    acceptWebSocket: () => undefined,
    getWebSockets: () => [],
  } as unknown as DurableObjectState;
}

describe('HibernatingSockets.accept', () => {
  it('stores the upgrade URL without its access_token, keeping the other parameters', () => {
    let stored: { url: string } | undefined;
    const socket = { serializeAttachment: (value: { url: string }) => void (stored = value) } as unknown as HibernatableWebSocket;
    const answer = { accept: () => ({ message: () => undefined, closed: () => undefined }), resume: () => ({ message: () => undefined, closed: () => undefined }) } as unknown as Resumable;
    new HibernatingSockets(objectState()).accept(socket, answer, new Request('https://pod.test/api/v1/streaming?stream=user&access_token=secret-token&tag=x'));
    expect(stored?.url).toBe('https://pod.test/api/v1/streaming?stream=user&tag=x');
    expect(JSON.stringify(stored)).not.toContain('secret-token');
  });

  it('gives the place in the socket budget back when workerd refuses the attachment, and lets the error through', () => {
    const refusal = new Error("A WebSocket 'attachment' cannot be larger than 16384 bytes.");
    const socket = {
      serializeAttachment: () => {
        throw refusal;
      },
    } as unknown as HibernatableWebSocket;
    let cancelled = 0;
    let accepted = 0;
    const answer = {
      accept: () => ((accepted += 1), { message: () => undefined, closed: () => undefined }),
      resume: () => ({ message: () => undefined, closed: () => undefined }),
      cancel: () => void (cancelled += 1),
    } as unknown as Resumable;
    expect(() => new HibernatingSockets(objectState()).accept(socket, answer, new Request('https://pod.test/nostr/v1'))).toThrow(refusal);
    expect(cancelled).toBe(1);
    expect(accepted).toBe(0);
  });

  it('stores no row for a socket once it has closed (an AUTH check that finishes after the close)', () => {
    const statements: string[] = [];
    const state = {
      storage: { sql: { exec: (query: string) => (statements.push(query), { toArray: () => [] }) } },
      acceptWebSocket: () => undefined,
      getWebSockets: () => [],
    } as unknown as DurableObjectState;
    let attachment: unknown;
    const socket = { serializeAttachment: (value: unknown) => void (attachment = value), deserializeAttachment: () => attachment } as unknown as HibernatableWebSocket;
    let remember: ((state: unknown) => void) | undefined;
    const answer = {
      accept: (raw: { remember(state: unknown): void }) => ((remember = (state) => raw.remember(state)), { message: () => undefined, closed: () => undefined }),
      resume: () => ({ message: () => undefined, closed: () => undefined }),
    } as unknown as Resumable;
    const sockets = new HibernatingSockets(state);
    sockets.accept(socket, answer, new Request('https://pod.test/nostr/v1'));
    remember!({ subscriptions: [] });
    expect(statements.filter((query) => query.startsWith('INSERT'))).toHaveLength(1);
    sockets.closed(socket);
    remember!({ subscriptions: [], authenticated: ['a'.repeat(64)] });
    expect(statements.filter((query) => query.startsWith('INSERT'))).toHaveLength(1);
    expect(statements.at(-1)).toMatch(/^DELETE/);
  });
});
