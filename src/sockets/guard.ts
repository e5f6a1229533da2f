/**
 * What every accepted WebSocket goes through, whichever feature serves it: its place in the budget is given
 * back when it closes (or when its handshake fails), a socket that listens for nothing and stays silent is
 * closed, and the unsent bytes of all sockets together stay under one bound. Pings and pongs are the runtime's
 * (it drops sockets that stop answering them). The idle rule runs on an interval timer while sockets are open,
 * or where the runtime asks for it (`schedule`: a Durable Object, which a timer would keep from hibernating)
 * at the times the runtime is asked for.
 */
import { CLOSE_TOO_SLOW, MAX_BUFFERED_BYTES, type SocketHandlers, type SocketLike, type UpgradeAnswer } from '../notifications/socket.ts';
import type { Admission, SocketTicket } from './budget.ts';

export type Acceptance = Extract<UpgradeAnswer, { accept: unknown }>;

/** Close code for a socket closed for listening to nothing (RFC 6455 1001: going away). */
export const CLOSE_IDLE = 1001;

export interface SocketGuardOptions {
  /** A socket subscribed to nothing that has sent nothing for this long is closed. */
  idleMs: number;
  /** Unsent bytes of all sockets together; past it the socket furthest behind is dropped. One socket holds at most MAX_BUFFERED_BYTES. */
  maxBufferedBytes: number;
  now(): number;
  /**
   * Present where the runtime calls `sweep` itself (Workers: the Durable Object's alarm, through
   * `App.runDue`): the guard asks it to, `inMs` from now, when a socket may have turned idle by then.
   * Absent: an interval timer sweeps while sockets are open.
   */
  schedule?(inMs: number): void;
}

interface Watched {
  readonly raw: SocketLike;
  /** Whether the connection listens for anything now; absent: always. */
  subscribed?: () => boolean;
  lastHeard: number;
  /** `raw.bufferedAmount` when last read: part of the total. */
  counted: number;
  /** Closed, or being closed: sends are dropped. */
  closing: boolean;
}

/** A connection the guard watches: what to send on, and what to tell it. */
export interface WatchedConnection {
  /** Sends through the bound on unsent bytes; closing through it stops further sends. */
  readonly socket: SocketLike;
  /** The client sent something (a silent connection that listens for nothing is closed). */
  heard(): void;
  /** Whether it listens for anything, from now on (absent: always). */
  listensWhile(subscribed: () => boolean): void;
  /** The connection ended, however it ended: it is forgotten and its place given back. Once; later calls do nothing. */
  closed(): void;
}

/**
 * The budget every long-lived connection shares, as features see it (FeatureContext.sockets). The app admits
 * and watches WebSocket upgrades itself; a streaming response takes a place with `admit(request, c.env)` before
 * it starts (or answers with the refusal it gets) and has the guard `watch` it, so its unread bytes count
 * among those of every socket, then calls `closed()` on the watched connection when the stream ends. HTTP
 * has no ping: a stream writes its own keep-alive every `pingIntervalMs`.
 */
export interface LongLivedConnections {
  admit(request: Request, env?: unknown): Admission;
  watch(raw: SocketLike, ticket: SocketTicket): WatchedConnection;
  /**
   * How often the runtimes ping WebSockets (half of --socket-idle-timeout): a streaming response writes a
   * keep-alive this often, so a peer that vanished fails a write and its place is given back.
   */
  readonly pingIntervalMs: number;
}

export class SocketGuard {
  readonly #options: SocketGuardOptions;
  readonly #live = new Set<Watched>();
  /** Sum of `counted`: never below the bytes really buffered by sockets sent to since they last drained. */
  #buffered = 0;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  /** With `schedule`: the time of the sweep asked for last (none, or it has run: undefined). */
  #nextSweep: number | undefined;

  constructor(options: SocketGuardOptions) {
    this.#options = options;
  }

  /** Sockets open now. */
  get open(): number {
    return this.#live.size;
  }

  /**
   * Watches an open long-lived connection that holds `ticket`: a WebSocket (see `guard`), or a streaming
   * response, whose `raw` socket enqueues to its body and says how much is queued unread.
   */
  watch(raw: SocketLike, ticket: SocketTicket): WatchedConnection {
    // A socket carried on through hibernation is idle since it was last heard before it.
    const watched: Watched = { raw, lastHeard: raw.lastHeard ?? this.#options.now(), counted: 0, closing: false };
    this.#live.add(watched);
    this.#startSweeping(watched);
    let closed = false;
    return {
      socket: {
        send: (text) => this.#send(watched, text),
        close: (code, reason) => {
          watched.closing = true;
          raw.close(code, reason);
        },
        get bufferedAmount() {
          return raw.bufferedAmount;
        },
        ...(raw.remember && { remember: (state: unknown) => raw.remember!(state) }),
      },
      heard: () => {
        watched.lastHeard = this.#options.now();
        // What the message changes may end the last subscription, also later (a refused `sub`): check then.
        this.#sweepBy(watched.lastHeard + this.#options.idleMs);
      },
      listensWhile: (subscribed) => {
        watched.subscribed = subscribed;
      },
      closed: () => {
        if (closed) return;
        closed = true;
        this.#forget(watched);
        ticket.release();
      },
    };
  }

  /**
   * The answer to give the runtime: the feature's, on a watched socket, with the ticket given back exactly
   * once. A connection carried on through hibernation (`resume`) is watched the same way and holds the ticket
   * of the upgrade the runtime made again for it.
   */
  guard(answer: Acceptance, ticket: SocketTicket): Acceptance {
    const { resume } = answer;
    return {
      accept: (raw) => this.#open(raw, ticket, (socket) => answer.accept(socket)),
      ...(resume && { resume: (raw: SocketLike, state: unknown) => this.#open(raw, ticket, (socket) => resume(socket, state)) }),
      cancel: () => {
        ticket.release();
        answer.cancel?.();
      },
    };
  }

  /**
   * Closes the sockets that listen for nothing and have been silent for the idle time, and answers in how many
   * ms the next may have (null: no socket open listens for nothing). The interval timer calls it every half
   * of the idle time (so a socket is closed within 1.5 times it), or the runtime, as `schedule` asked.
   */
  sweep(): number | null {
    const now = this.#options.now();
    this.#nextSweep = undefined;
    let next: number | undefined;
    for (const watched of this.#live) {
      if (watched.closing || (watched.subscribed?.() ?? true)) continue;
      const idleAt = watched.lastHeard + this.#options.idleMs;
      if (idleAt > now) next = Math.min(next ?? idleAt, idleAt);
      else this.#closeIdle(watched);
    }
    if (next === undefined) return null;
    this.#nextSweep = next;
    return next - now;
  }

  #open(raw: SocketLike, ticket: SocketTicket, open: (socket: SocketLike) => SocketHandlers): SocketHandlers {
    const connection = this.watch(raw, ticket);
    let handlers: SocketHandlers;
    try {
      handlers = open(connection.socket);
    } catch (error) {
      connection.closed();
      throw error;
    }
    const subscribed = handlers.subscribed;
    // A socket opened for one topic listens as long as it is open.
    connection.listensWhile(subscribed ? () => subscribed() : () => true);
    let closed = false;
    return {
      message: (text) => {
        connection.heard();
        handlers.message(text);
      },
      closed: () => {
        if (closed) return;
        closed = true;
        connection.closed();
        handlers.closed();
      },
      ...(subscribed && { subscribed: () => subscribed() }),
    };
  }

  #send(watched: Watched, text: string): void {
    if (watched.closing) return;
    const before = watched.raw.bufferedAmount;
    if (before === undefined) return watched.raw.send(text);
    if (before > MAX_BUFFERED_BYTES) return this.#drop(watched);
    this.#recount(watched, before);
    if (this.#buffered + text.length > this.#options.maxBufferedBytes) {
      // The total is stale on the high side (sockets drain unseen): read every socket before dropping one.
      for (const other of this.#live) this.#recount(other, other.raw.bufferedAmount ?? 0);
      if (this.#buffered + text.length > this.#options.maxBufferedBytes) {
        let furthest = watched;
        for (const other of this.#live) if (!other.closing && other.counted > furthest.counted) furthest = other;
        this.#drop(furthest);
        if (furthest === watched) return;
      }
    }
    watched.raw.send(text);
    this.#recount(watched, watched.raw.bufferedAmount ?? 0);
  }

  #forget(watched: Watched): void {
    watched.closing = true;
    this.#live.delete(watched);
    this.#buffered -= watched.counted;
    watched.counted = 0;
    if (this.#live.size === 0) this.#stopSweeping();
  }

  #recount(watched: Watched, buffered: number): void {
    this.#buffered += buffered - watched.counted;
    watched.counted = buffered;
  }

  /** Closes a reader too slow to keep up (1013), dropping what it has not taken where the runtime can. */
  #drop(watched: Watched): void {
    watched.closing = true;
    watched.raw.close(CLOSE_TOO_SLOW, 'reader too slow');
    watched.raw.terminate?.();
  }

  #startSweeping(watched: Watched): void {
    if (this.#options.schedule) return this.#sweepBy(watched.lastHeard + this.#options.idleMs);
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setInterval(() => this.sweep(), Math.max(50, this.#options.idleMs / 2));
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** With `schedule`: has a sweep run by `at`, asking the runtime only when none is asked for by then already. */
  #sweepBy(at: number): void {
    const schedule = this.#options.schedule;
    if (!schedule || (this.#nextSweep !== undefined && this.#nextSweep <= at)) return;
    this.#nextSweep = at;
    schedule(Math.max(0, at - this.#options.now()));
  }

  #closeIdle(watched: Watched): void {
    watched.closing = true;
    watched.raw.close(CLOSE_IDLE, 'idle: subscribed to nothing');
  }
}
