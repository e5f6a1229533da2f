/**
 * The solid-0.1 WebSocket protocol (solid/solid-spec api-websockets.md): text lines `<verb> <uri>`.
 * Client: `sub <uri>`, `unsub <uri>`. Server: `protocol solid-0.1` on connect, `ack <uri>`, `unsub <uri>`
 * (unsubscription done), `pub <uri>`, and `err <uri|-> <reason>` for anything it cannot do.
 */
import type { Lookups, NotificationHub, Subscriber, TopicEvent } from './hub.ts';
import type { ReadAccess } from './read-check.ts';
import { sendOrDrop, type SocketHandlers, type SocketLike } from './socket.ts';

export const PROTOCOL_LINE = 'protocol solid-0.1';
export const MAX_MESSAGE_LENGTH = 8 * 1024;
export const MAX_URL_LENGTH = 4 * 1024;
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 1000;
/** With access checks: messages waiting for one; a client that floods faster than that gets `err - busy`. */
export const MAX_PENDING_MESSAGES = 256;

export type ErrorReason =
  | 'forbidden'
  | 'invalid-uri'
  | 'too-long'
  | 'too-many-subscriptions'
  | 'unknown-command'
  | 'malformed'
  | 'busy';

export type Command = { verb: 'sub' | 'unsub'; uri: string } | { error: ErrorReason; uri?: string };

/** Parses one client message. Never throws: anything unexpected becomes an error to report. */
export function parseCommand(text: string | null): Command {
  if (text === null) return { error: 'malformed' };
  if (text.length > MAX_MESSAGE_LENGTH) return { error: 'too-long' };
  const words = text.trim().split(/\s+/);
  if (words.length !== 2) return { error: 'malformed' };
  const [verb, uri] = words as [string, string];
  if (uri.length > MAX_URL_LENGTH) return { error: 'too-long' };
  if (verb !== 'sub' && verb !== 'unsub') return { error: 'unknown-command', uri };
  return { verb, uri };
}

export function errorLine(reason: ErrorReason, uri?: string): string {
  return `err ${uri ?? '-'} ${reason}`;
}

/** What a solid-0.1 session needs to know about the server it runs on. */
export interface Solid01Options {
  hub: NotificationHub;
  /** `http(s)://host` the client reached this server at: only URLs there may be subscribed. */
  origin: string;
  /** Storage path of a URL on this server; throws when the path is not valid. */
  pathOf(url: URL): string;
  /**
   * With --notifications-auth: this socket's caller's Read on a path, asked when it subscribes and again
   * before each `pub`. Absent: anyone may subscribe.
   */
  readCheck?(path: string): ReadAccess;
}

/** Checks a subscription target: the storage path, or the reason it is refused. */
function targetOf(uri: string, options: Solid01Options): { path: string } | { error: ErrorReason } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { error: 'invalid-uri' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'invalid-uri' };
  if (url.origin !== options.origin) return { error: 'forbidden' };
  try {
    return { path: options.pathOf(url) };
  } catch {
    return { error: 'invalid-uri' };
  }
}

/** Serves one socket: greets, answers commands in order, and relays `pub` lines from the hub. */
export function openSolid01(socket: SocketLike, options: Solid01Options): SocketHandlers {
  /** Storage path -> the URL as the client wrote it, echoed in `pub`, and (with access checks) its Read. */
  const subscriptions = new Map<string, { uri: string; read?: ReadAccess }>();
  let open = true;
  let pending = 0;
  let queue: Promise<void> = Promise.resolve();

  const reply = (line: string) => {
    if (open) socket.send(line);
  };

  /** With access checks: `pub` while the caller may still read the path; else the subscription ends with `err … forbidden`. */
  async function publishChecked(path: string, entry: { uri: string }, read: ReadAccess, lookups: Lookups): Promise<void> {
    const allowed = await read.allowed(await lookups.accessVersion());
    if (!open || subscriptions.get(path) !== entry) return;
    if (allowed) return sendOrDrop(socket, `pub ${entry.uri}`);
    subscriptions.delete(path);
    options.hub.unsubscribe(path, subscriber);
    reply(errorLine('forbidden', entry.uri));
  }

  const subscriber: Subscriber = {
    deliver(events: readonly TopicEvent[], lookups) {
      const path = events[0]!.topic;
      const entry = open ? subscriptions.get(path) : undefined;
      if (entry === undefined) return;
      if (!entry.read) return sendOrDrop(socket, `pub ${entry.uri}`);
      return publishChecked(path, entry, entry.read, lookups);
    },
  };

  async function handle(text: string | null): Promise<void> {
    const command = parseCommand(text);
    if ('error' in command) return reply(errorLine(command.error, command.uri));
    const target = targetOf(command.uri, options);
    if ('error' in target) return reply(errorLine(target.error, command.uri));
    if (command.verb === 'unsub') {
      if (subscriptions.delete(target.path)) options.hub.unsubscribe(target.path, subscriber);
      return reply(`unsub ${command.uri}`);
    }
    if (!subscriptions.has(target.path) && subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
      return reply(errorLine('too-many-subscriptions', command.uri));
    }
    const read = options.readCheck?.(target.path);
    if (read && !(await read.allowed(undefined).catch(() => false))) {
      return reply(errorLine('forbidden', command.uri));
    }
    if (!open) return;
    subscriptions.set(target.path, { uri: command.uri, ...(read && { read }) });
    options.hub.subscribe(target.path, subscriber);
    reply(`ack ${command.uri}`);
  }

  socket.send(PROTOCOL_LINE);
  return {
    message(text) {
      // Without access checks a command is answered synchronously, so replies keep the commands' order.
      if (!options.readCheck) return void handle(text);
      if (pending >= MAX_PENDING_MESSAGES) return reply(errorLine('busy'));
      pending++;
      // Access checks are asynchronous; the queue keeps replies in the order of the commands.
      queue = queue.then(() => handle(text)).catch(() => reply(errorLine('malformed'))).finally(() => pending--);
    },
    closed() {
      open = false;
      for (const path of subscriptions.keys()) options.hub.unsubscribe(path, subscriber);
      subscriptions.clear();
    },
    subscribed: () => subscriptions.size > 0 || pending > 0,
  };
}
