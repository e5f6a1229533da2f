import { problemResponse } from '../http/problem.ts';

/**
 * The little the core needs from a WebSocket, so every runtime can supply its own (Node's `ws`, Deno,
 * Bun, a Workers WebSocketPair). The runtime answers pings and closes sockets that stop answering.
 */
export interface SocketLike {
  send(text: string): void;
  close(code: number, reason: string): void;
  /** Bytes queued but not yet sent, when the runtime knows; readers that fall too far behind are closed. */
  readonly bufferedAmount?: number;
  /** Drops the connection at once, unsent bytes and all, where the runtime can (a reader that does not even take a close frame). */
  terminate?(): void;
  /**
   * Present where the runtime may let the connection's process go while the socket stays open (a Durable
   * Object's WebSocket hibernation): keeps what the connection needs to carry on (JSON), for `resume`.
   */
  remember?(state: unknown): void;
  /** When the client last sent something (ms since the epoch), where the runtime kept it through hibernation: the idle rule counts from it. */
  readonly lastHeard?: number;
}

/** What the runtime calls when something arrives on an accepted socket. */
export interface SocketHandlers {
  /** A message arrived: its text, or null for a binary message. */
  message(text: string | null): void;
  /** The socket closed, for whatever reason. Called once. */
  closed(): void;
  /** Whether the socket listens for anything now; absent: always (it was opened for one topic). Silent sockets that listen for nothing are closed (`--socket-idle-timeout`). */
  subscribed?(): boolean;
}

/**
 * The core's answer to a WebSocket upgrade request: accept (the runtime then completes the handshake and calls
 * `accept` once the socket is open, or `cancel` when the handshake fails, so the socket's place in the budget
 * is given back) or refuse. `resume`, where the endpoint offers it: carries on a connection the runtime let go
 * of (hibernation) from the state it last `remember`ed, without greeting the client again.
 */
export type UpgradeAnswer =
  | { accept(socket: SocketLike): SocketHandlers; resume?(socket: SocketLike, state: unknown): SocketHandlers; cancel?(): void }
  | { refuse: Response };

/** Sockets whose unsent backlog passes this are closed: a slow reader must not make the server hold memory. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** Close code for a reader that fell behind (RFC 6455 1013: try again later). */
export const CLOSE_TOO_SLOW = 1013;

/** Sends unless the reader has fallen too far behind, in which case the socket is closed instead. */
export function sendOrDrop(socket: SocketLike, text: string): void {
  if ((socket.bufferedAmount ?? 0) > MAX_BUFFERED_BYTES) {
    socket.close(CLOSE_TOO_SLOW, 'reader too slow');
    return;
  }
  socket.send(text);
}

/**
 * The longest upgrade URL any socket endpoint takes. A Durable Object keeps a hibernating socket's URL in its
 * attachment, which workerd caps at 16 KiB; no endpoint's parameters come near this, so every runtime refuses
 * longer ones the same way, before the socket budget is asked.
 */
export const MAX_UPGRADE_URL_BYTES = 8 * 1024;

/** The 414 answer for an upgrade URL over `MAX_UPGRADE_URL_BYTES`, or null when it is short enough. */
export function refuseLongUpgradeUrl(request: Request): Response | null {
  const bytes = new TextEncoder().encode(request.url).byteLength;
  if (bytes <= MAX_UPGRADE_URL_BYTES) return null;
  return problemResponse(414, `The WebSocket URL is ${bytes} bytes long; socket endpoints take at most ${MAX_UPGRADE_URL_BYTES}.`, { type: 'urn:svc:problem:upgrade-url-too-long' });
}
