import type { ClientRequestArgs } from 'node:http';
import { vi } from 'vitest';
import WebSocket from 'ws';
import type { SocketHandlers, SocketLike } from '../../src/notifications/socket.ts';

/** The `@id` of the storage description's subscription service for a channel type (its last word, e.g. `WebhookChannel2023`). */
export function subscriptionService(description: Record<string, unknown>, channelType: string): string {
  const listed = description['notify:subscription'];
  const services = (Array.isArray(listed) ? listed : [listed]) as Array<{ '@id': string; 'notify:channelType': { '@id': string } }>;
  const service = services.find((entry) => entry['notify:channelType']['@id'].endsWith(`#${channelType}`));
  if (!service) throw new Error(`no ${channelType} service in ${JSON.stringify(listed)}`);
  return service['@id'];
}

/** Generous bound for anything asynchronous; tests wait for an event, never for a fixed time. */
export const WAIT_MS = 5_000;

/** An in-memory socket: records what the core sends. */
export class FakeSocket implements SocketLike {
  readonly sent: string[] = [];
  closedWith: { code: number; reason: string } | null = null;
  bufferedAmount = 0;
  handlers: SocketHandlers | null = null;

  send(text: string): void {
    this.sent.push(text);
  }

  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
    this.handlers?.closed();
  }

  /** Waits until a sent line satisfies the test and returns it. */
  async waitFor(test: (line: string) => boolean): Promise<string> {
    return vi.waitFor(
      () => {
        const line = this.sent.find(test);
        if (line === undefined) throw new Error(`no matching line yet; sent: ${JSON.stringify(this.sent)}`);
        return line;
      },
      { timeout: WAIT_MS, interval: 5 },
    );
  }
}

/** A real WebSocket client that queues incoming text messages and hands them out in order. */
export class Inbox {
  readonly socket: WebSocket;
  readonly #messages: string[] = [];
  #waiters: Array<() => void> = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;

  /** `options` go to the client as they are (a `lookup` for host names the system resolver does not know). */
  constructor(url: string, protocols?: string | string[], headers?: Record<string, string>, options: WebSocket.ClientOptions & Pick<ClientRequestArgs, 'lookup'> = {}) {
    this.socket = new WebSocket(url, protocols, { ...options, headers });
    this.socket.on('message', (data) => {
      this.#messages.push(data.toString());
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
      this.socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** The next message, or a rejection after WAIT_MS. */
  async next(): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    while (this.#messages.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no message arrived in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.#messages.shift()!;
  }

  /** Skips messages until one satisfies the test; fails after WAIT_MS. */
  async until(test: (message: string) => boolean): Promise<string> {
    for (;;) {
      const message = await this.next();
      if (test(message)) return message;
    }
  }

  /** Sends a command and returns the next message (the reply). */
  async ask(command: string): Promise<string> {
    this.socket.send(command);
    return this.next();
  }

  /** Messages received and not yet taken. */
  pending(): readonly string[] {
    return this.#messages;
  }

  close(): void {
    this.socket.terminate();
  }
}
