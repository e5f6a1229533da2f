/**
 * The WebSockets of endpoints that can carry a connection on (`UpgradeAnswer.resume`: the Nostr relay, the
 * Mastodon streaming API), accepted with the Durable Object's WebSocket hibernation: the object may be evicted
 * from memory while they stay open, and workerd hands their next message to a new instance of it. Each
 * socket's attachment names its row of state in the object's SQLite, which the connection keeps up to date
 * (`SocketLike.remember`); when the object starts again, every open socket is resumed from its row before
 * anything else is handled (a message, the alarm, an isolate's `publish`), so the subscriptions all listen
 * again before the first new event is published.
 */
import type { DurableObjectState, HibernatableWebSocket, SqlStorage } from 'cloudflare:workers';
import type { App } from '../../src/app.ts';
import type { SocketHandlers, SocketLike, UpgradeAnswer } from '../../src/notifications/socket.ts';
import { CLOSE_TOO_BIG, isTooBigMessage } from '../../src/sockets/messages.ts';

/** What a socket carries through hibernation: its row of state, and how to ask the app for its endpoint again. */
interface Attachment {
  id: string;
  url: string;
  /** CF-Connecting-IP of the upgrade, so the resumed connection is counted against the same address. */
  address: string | null;
  /** When the client last sent something (ms since the epoch): a resumed connection's idle time counts from it. */
  heard: number;
}

interface StateRow extends Record<string, string | number | null> {
  id: string;
  state: string;
}

export type Resumable = Extract<UpgradeAnswer, { accept: unknown }> & { resume: NonNullable<Extract<UpgradeAnswer, { accept: unknown }>['resume']> };

/** RFC 6455 1012 (service restart): the endpoint could not carry the connection on; the client connects again. */
const CLOSE_RESTARTED = 1012;

export function isResumable(answer: Extract<UpgradeAnswer, { accept: unknown }>): answer is Resumable {
  return typeof answer.resume === 'function';
}

/**
 * The upgrade's URL without an `access_token` parameter: the attachment is stored by workerd, and a resumed
 * connection finds its token again by the hash it remembered, never by the token itself.
 */
function withoutToken(href: string): string {
  const url = new URL(href);
  if (!url.searchParams.has('access_token')) return href;
  url.searchParams.delete('access_token');
  return url.href;
}

export class HibernatingSockets {
  readonly #ctx: DurableObjectState;
  readonly #sql: SqlStorage;
  readonly #handlers = new Map<HibernatableWebSocket, SocketHandlers>();
  /** Attachment ids of the sockets open in this instance: work that finishes after a close (an AUTH check) must not store its row again. */
  readonly #open = new Set<string>();
  #resumed: Promise<void> | undefined;

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
    this.#sql = ctx.storage.sql;
    this.#sql.exec('CREATE TABLE IF NOT EXISTS socket_states (id TEXT PRIMARY KEY, state TEXT NOT NULL)');
  }

  /**
   * Accepts the server end of a new socket for a resumable endpoint. When workerd refuses it (an attachment
   * over its 16 KiB limit), the answer is cancelled, giving its place in the socket budget back, and the error
   * goes on to the caller.
   */
  accept(socket: HibernatableWebSocket, answer: Resumable, request: Request): void {
    const attachment: Attachment = { id: crypto.randomUUID(), url: withoutToken(request.url), address: request.headers.get('cf-connecting-ip'), heard: Date.now() };
    try {
      socket.serializeAttachment(attachment);
      this.#ctx.acceptWebSocket(socket);
    } catch (error) {
      answer.cancel?.();
      throw error;
    }
    this.#open.add(attachment.id);
    try {
      this.#handlers.set(socket, answer.accept(this.#socketLike(socket, attachment)));
    } catch (error) {
      this.#open.delete(attachment.id);
      throw error;
    }
  }

  /**
   * Carries on every open socket this instance of the object does not know (it has just started), once per
   * instance; call before handling anything. `app` answers the reconstructed upgrade requests. A pass that
   * failed is tried again by the next call, as `App.init` is.
   */
  resumeAll(app: App): Promise<void> {
    return (this.#resumed ??= this.#resume(app).catch((error: unknown) => {
      this.#resumed = undefined;
      throw error;
    }));
  }

  async message(socket: HibernatableWebSocket, message: string | ArrayBuffer): Promise<void> {
    const handlers = this.#handlers.get(socket);
    if (!handlers) return socket.close(CLOSE_RESTARTED, 'the connection could not be carried on; connect again');
    const attachment = socket.deserializeAttachment() as Attachment | null;
    if (attachment) socket.serializeAttachment({ ...attachment, heard: Date.now() } satisfies Attachment);
    if (typeof message !== 'string') return handlers.message(null);
    if (isTooBigMessage(message)) return socket.close(CLOSE_TOO_BIG, 'message too big');
    handlers.message(message);
  }

  /** The socket closed or failed: its connection ends and its row goes. */
  closed(socket: HibernatableWebSocket): void {
    const handlers = this.#handlers.get(socket);
    this.#handlers.delete(socket);
    const attachment = socket.deserializeAttachment() as Attachment | null;
    if (attachment) {
      this.#open.delete(attachment.id);
      this.#sql.exec('DELETE FROM socket_states WHERE id = ?', attachment.id);
    }
    handlers?.closed();
  }

  #socketLike(socket: HibernatableWebSocket, { id, heard }: Attachment): SocketLike {
    return {
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      remember: (state) => {
        if (this.#open.has(id)) this.#sql.exec('INSERT INTO socket_states (id, state) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state', id, JSON.stringify(state));
      },
      lastHeard: heard,
    };
  }

  async #resume(app: App): Promise<void> {
    // Every row in one read: rows of sockets that ended while no instance of the object was there to hear it go below.
    const rows = new Map(this.#sql.exec<StateRow>('SELECT id, state FROM socket_states').toArray().map((row) => [row.id, row]));
    const open = new Set<string>();
    for (const socket of this.#ctx.getWebSockets()) {
      const attachment = socket.deserializeAttachment() as Attachment | null;
      if (!attachment) continue;
      open.add(attachment.id);
      if (this.#handlers.has(socket)) continue;
      const row = rows.get(attachment.id);
      const headers = new Headers({ upgrade: 'websocket', connection: 'Upgrade' });
      if (attachment.address) headers.set('cf-connecting-ip', attachment.address);
      const answer = row ? await app.upgradeWebSocket?.(new Request(attachment.url, { headers })) : null;
      if (!answer || !('accept' in answer) || !isResumable(answer)) {
        // An answer not taken gives its place in the socket budget back.
        if (answer && 'accept' in answer) answer.cancel?.();
        socket.close(CLOSE_RESTARTED, 'the connection could not be carried on; connect again');
        continue;
      }
      this.#open.add(attachment.id);
      this.#handlers.set(socket, answer.resume(this.#socketLike(socket, attachment), JSON.parse(row!.state)));
    }
    for (const id of rows.keys()) if (!open.has(id)) this.#sql.exec('DELETE FROM socket_states WHERE id = ?', id);
  }
}
