/**
 * Mastodon's streaming API (https://docs.joinmastodon.org/methods/streaming/): `GET /api/v1/streaming/health`,
 * and the WebSocket at `/api/v1/streaming`, which the runtimes open through the features' one upgrade path
 * (so the socket limits every WebSocket endpoint shares apply to it too). A socket subscribes to streams
 * (`?stream=` on the URL, or `{"type":"subscribe","stream":...}` messages) and gets `update`, `delete`,
 * `status.update` and `notification` events, made from what the ActivityPub feature writes: the owner's
 * outbox, followers, and the inbox. Those writes reach every instance (`--redis-url`), so a socket held by
 * one instance hears of posts that came in through another. Where the runtime lets the socket's process go
 * (a Workers Durable Object's WebSocket hibernation), a socket is carried on from what it remembered: the hash
 * of its token and its streams (`SocketLike.remember`).
 */
import type { Hono } from 'hono';
import { inboxRecordPath } from '../activitypub/inbound.ts';
import { FOLLOWERS_CONTAINER, INBOX_CONTAINER, OUTBOX_CONTAINER } from '../activitypub/paths.ts';
import { problemResponse } from '../http/problem.ts';
import { sha256 } from '../idp/random.ts';
import type { Change } from '../ldp/context.ts';
import type { SocketHandlers, SocketLike, UpgradeAnswer } from '../notifications/socket.ts';
import { sendOrDrop } from '../notifications/socket.ts';
import type { AccessRecord, TokenStore } from '../oauth/tokens.ts';
import type { StorageDriver } from '../storage/types.ts';
import { NO_LISTS, type ListDocument } from './lists.ts';
import { federatedAt, viewerFor, type SocialRoutesContext } from './federated.ts';
import { ANONYMOUS } from './status-entity.ts';
import { eventsOf, InboundStatusIds, type StreamEvent } from './stream-events.ts';
import { errorMessage, matches, PRIVATE, STREAMS, streamKey, type StreamName, type StreamParameters, type Subscription } from './streams.ts';
import { tagName } from './timeline.ts';

export const STREAMING_PATH = '/api/v1/streaming';

/** Streams a socket may subscribe to at once. */
const MAX_SUBSCRIPTIONS = 64;
/** How often a socket's token is looked up again (before a private event), so a revoked or expired one stops. */
const TOKEN_RECHECK_MS = 60_000;
/** Close code when the token stops working (RFC 6455 1008: policy violation). */
const CLOSE_TOKEN_ENDED = 1008;

/** What a socket remembers to be carried on (`UpgradeAnswer.resume`): never the token itself, only its hash. */
interface RememberedSession {
  tokenHash: string | null;
  /** Each stream's name and its tag or list id. */
  streams: Array<{ name: string; parameter?: string }>;
}

interface Session {
  socket: SocketLike;
  origin: string;
  /** SHA-256 of the access token, to look it up again. */
  tokenHash: string | null;
  record: AccessRecord | null;
  isOwner: boolean;
  checked: number;
  subscriptions: Map<string, Subscription>;
  /** Subscribe messages being answered. */
  pending: number;
  /** Settles once a socket carried on has its token and streams back: events wait for it. */
  ready: Promise<void>;
  closed: boolean;
}

export interface StreamingDeps extends SocialRoutesContext {
  readonly storage: StorageDriver;
  readonly tokens: TokenStore;
  log(line: string): void;
  /** Changes waiting to become events; past it the oldest are dropped. */
  readonly backlog: number;
}

/** The token of an upgrade request: `Authorization: Bearer`, `?access_token=`, or `Sec-WebSocket-Protocol` (as Mastodon takes them). */
function tokenOf(request: Request): string | null {
  const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.get('authorization')?.trim() ?? '');
  if (bearer) return bearer[1]!;
  const query = new URL(request.url).searchParams.get('access_token');
  if (query) return query;
  return request.headers.get('sec-websocket-protocol')?.split(',')[0]?.trim() || null;
}

export class StreamingApi {
  readonly #deps: StreamingDeps;
  readonly #sessions = new Set<Session>();
  /** Inbox record path → status id, while sockets are open (filled when the first one opens). */
  readonly #statusIds = new InboundStatusIds();
  #primed: Promise<void> | null = null;
  #queue: Change[] = [];
  #working = false;

  constructor(deps: StreamingDeps) {
    this.#deps = deps;
  }

  /** Sockets open now. */
  get open(): number {
    return this.#sessions.size;
  }

  routes(app: Hono): void {
    app.get(`${STREAMING_PATH}/health`, () => new Response('OK', { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } }));
    app.all(`${STREAMING_PATH}/*`, () => this.#upgradeRequired());
    app.all(STREAMING_PATH, () => this.#upgradeRequired());
  }

  #upgradeRequired(): Response {
    return problemResponse(426, `Connect a WebSocket to ${STREAMING_PATH} (with ?stream=user, public, public:local, hashtag&tag=...); this server does not stream over plain HTTP (server-sent events).`, {
      type: 'urn:svc:problem:upgrade-required',
      headers: { Upgrade: 'websocket', Connection: 'Upgrade' },
      extra: { error: 'Connect a WebSocket to /api/v1/streaming' },
    });
  }

  /** Sees every write; returns at once (the events are made in order, later). */
  afterWrite(changes: readonly Change[]): void {
    if (this.#sessions.size === 0) return;
    const wanted = changes.filter((change) => change.path.startsWith(INBOX_CONTAINER) || change.path.startsWith(OUTBOX_CONTAINER) || change.path.startsWith(FOLLOWERS_CONTAINER));
    if (wanted.length === 0) return;
    this.#queue.push(...wanted);
    if (this.#queue.length > this.#deps.backlog) {
      const dropped = this.#queue.splice(0, this.#queue.length - this.#deps.backlog);
      this.#deps.log(`mastodon streaming: ${dropped.length} changes dropped (more than --streaming-backlog ${this.#deps.backlog} waiting)`);
    }
    if (!this.#working) void this.#work();
  }

  async #work(): Promise<void> {
    this.#working = true;
    try {
      while (this.#queue.length > 0 && this.#sessions.size > 0) {
        const change = this.#queue.shift()!;
        try {
          await this.#primed;
          await Promise.all([...this.#sessions].map((session) => session.ready));
          await this.#handle(change);
        } catch (error) {
          this.#deps.log(`mastodon streaming: ${change.path}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      this.#queue = [];
    } finally {
      this.#working = false;
    }
  }

  /** Answers an upgrade at /api/v1/streaming; null for any other URL. */
  async upgrade(request: Request): Promise<UpgradeAnswer | null> {
    const url = new URL(request.url);
    if (url.pathname !== STREAMING_PATH && url.pathname !== `${STREAMING_PATH}/`) return null;
    const token = tokenOf(request);
    const tokenHash = token === null ? null : await sha256(token);
    let record: AccessRecord | null = null;
    if (tokenHash !== null) {
      const found = await this.#deps.tokens.lookupHash(tokenHash);
      if (found === null || !('record' in found)) {
        const why = found === null ? 'The access token is invalid' : 'expired' in found ? 'The access token expired' : 'The access token was revoked';
        return { refuse: problemResponse(401, why, { type: 'urn:svc:problem:unauthenticated', extra: { error: 'Invalid access token' } }) };
      }
      record = found.record;
    }
    const session: Session = {
      socket: undefined as unknown as SocketLike,
      origin: url.origin,
      tokenHash,
      record,
      isOwner: await this.#isOwner(record),
      checked: this.#deps.now(),
      subscriptions: new Map(),
      pending: 0,
      ready: Promise.resolve(),
      closed: false,
    };
    const initial = url.searchParams.get('stream');
    const parameters: StreamParameters = { tag: url.searchParams.get('tag') ?? undefined, list: url.searchParams.get('list') ?? undefined };
    const handlers: SocketHandlers & { subscribed(): boolean } = {
      message: (text) => void this.#message(session, text),
      closed: () => this.#close(session),
      subscribed: () => session.subscriptions.size > 0 || session.pending > 0,
    };
    return {
      accept: (socket) => {
        session.socket = socket;
        this.#open(session);
        if (initial) void this.#subscribe(session, initial, parameters);
        return handlers;
      },
      resume: (socket, state) => {
        session.socket = socket;
        session.ready = this.#restore(session, state as RememberedSession);
        this.#open(session);
        return handlers;
      },
    };
  }

  async #isOwner(record: AccessRecord | null): Promise<boolean> {
    return record !== null && record.grant.accountId !== null && (await this.#deps.accountName(record)) === this.#deps.ownerName;
  }

  /** Takes a socket's token and streams back from what it remembered; a token that stopped working closes it. */
  async #restore(session: Session, remembered: RememberedSession): Promise<void> {
    try {
      if (remembered.tokenHash !== null && session.tokenHash === null) {
        const found = await this.#deps.tokens.lookupHash(remembered.tokenHash);
        if (found === null || !('record' in found)) return this.#end(session);
        Object.assign(session, { tokenHash: remembered.tokenHash, record: found.record, isOwner: await this.#isOwner(found.record) });
      }
      await Promise.all(remembered.streams.map(({ name, parameter }) => this.#subscribe(session, name, name === 'list' ? { list: parameter } : { tag: parameter })));
    } catch (error) {
      this.#deps.log(`mastodon streaming: resume: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Hands the socket's token hash and streams to the runtime, where it keeps them through hibernation. */
  #rememberStreams(session: Session): void {
    if (!session.socket.remember) return;
    const streams = [...session.subscriptions.values()].map(({ name, stream }) => ({ name, ...(stream[1] !== undefined && { parameter: stream[1] }) }));
    session.socket.remember({ tokenHash: session.tokenHash, streams } satisfies RememberedSession);
  }

  #end(session: Session): void {
    session.closed = true;
    session.socket.close(CLOSE_TOKEN_ENDED, 'the access token was revoked or expired');
  }

  #open(session: Session): void {
    this.#sessions.add(session);
    if (this.#sessions.size === 1) this.#primed = this.#prime(session.origin);
  }

  #close(session: Session): void {
    session.closed = true;
    this.#sessions.delete(session);
    if (this.#sessions.size === 0) {
      this.#statusIds.clear();
      this.#primed = null;
    }
  }

  /** The ids of the inbound posts held now, so that a deletion of any of them can be told. */
  async #prime(origin: string): Promise<void> {
    try {
      const found = await federatedAt(this.#deps, origin);
      if (!found) return;
      for (const status of await found.catalog.inbound()) this.#statusIds.remember(await inboxRecordPath(status.uri), status.id);
    } catch (error) {
      this.#deps.log(`mastodon streaming: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #send(session: Session, text: string): void {
    if (!session.closed) sendOrDrop(session.socket, text);
  }

  async #message(session: Session, text: string | null): Promise<void> {
    if (text === null) return this.#send(session, errorMessage('Send text messages', 400));
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.#send(session, errorMessage('The message is not JSON', 400));
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return this.#send(session, errorMessage('The message is not a JSON object', 400));
    const { type, stream, tag, list } = message as Record<string, unknown>;
    const name = Array.isArray(stream) ? stream[0] : stream;
    if (typeof name !== 'string') return this.#send(session, errorMessage('Name a stream', 400));
    const parameters: StreamParameters = { tag: typeof tag === 'string' ? tag : undefined, list: typeof list === 'string' || typeof list === 'number' ? String(list) : undefined };
    if (type === 'subscribe') return this.#subscribe(session, name, parameters);
    if (type === 'unsubscribe') {
      if (session.subscriptions.delete(streamKey(name, parameters))) this.#rememberStreams(session);
      return;
    }
    this.#send(session, errorMessage('Unknown message type (subscribe or unsubscribe)', 400));
  }

  async #subscribe(session: Session, name: string, parameters: StreamParameters): Promise<void> {
    session.pending++;
    try {
      const refusal = await this.#check(session, name, parameters);
      if (typeof refusal === 'string') return this.#send(session, refusal);
      const key = streamKey(name, parameters);
      if (!session.subscriptions.has(key) && session.subscriptions.size >= MAX_SUBSCRIPTIONS) return this.#send(session, errorMessage(`A socket holds at most ${MAX_SUBSCRIPTIONS} streams`, 400));
      session.subscriptions.set(key, refusal);
      this.#rememberStreams(session);
    } catch (error) {
      this.#deps.log(`mastodon streaming: subscribe: ${error instanceof Error ? error.message : String(error)}`);
      this.#send(session, errorMessage('The subscription failed', 500));
    } finally {
      session.pending--;
    }
  }

  /** The subscription, or the error message refusing it. */
  async #check(session: Session, name: string, parameters: StreamParameters): Promise<Subscription | string> {
    if (!(STREAMS as readonly string[]).includes(name)) return errorMessage('Unknown stream type', 400);
    const stream = name as StreamName;
    if (!PRIVATE.includes(stream)) {
      if (stream !== 'hashtag' && stream !== 'hashtag:local') return { name: stream, stream: [stream] };
      const tag = tagName(parameters.tag ?? '');
      return tag === null ? errorMessage('No tag for stream provided', 400) : { name: stream, stream: [stream, parameters.tag!], tag };
    }
    const { record } = session;
    if (!record) return errorMessage('Missing access token', 401);
    const scopes = record.grant.scopes;
    const needed = stream === 'user:notification' ? ['read', 'read:notifications'] : stream === 'list' ? ['read', 'read:lists'] : ['read', 'read:statuses'];
    if (!scopes.some((scope) => needed.includes(scope))) return errorMessage('Access token does not cover required scopes', 401);
    if (!session.isOwner) return errorMessage('This account has no home timeline on this server: ActivityPub has one actor, the pod at /', 422);
    if (stream === 'direct') return { name: stream, stream: [stream] };
    if (stream !== 'list') return { name: stream, stream: [stream] };
    const lists = await this.#deps.state.read<ListDocument>(record.grant.accountId!, 'lists', NO_LISTS);
    const list = lists.lists.find((item) => item.id === parameters.list);
    if (!list) return errorMessage('Not authorized to stream this list', 404);
    return { name: stream, stream: [stream, list.id], members: new Set(list.members) };
  }

  /** False (and the socket closed) when the token of a socket stopped working since it was last looked at. */
  async #tokenStillWorks(session: Session): Promise<boolean> {
    if (session.tokenHash === null || this.#deps.now() - session.checked < TOKEN_RECHECK_MS) return true;
    session.checked = this.#deps.now();
    const found = await this.#deps.tokens.lookupHash(session.tokenHash);
    if (found !== null && 'record' in found) return true;
    this.#end(session);
    return false;
  }

  async #handle(change: Change): Promise<void> {
    const origins = new Set([...this.#sessions].map((session) => session.origin));
    for (const origin of origins) {
      const found = await federatedAt(this.#deps, origin);
      if (!found) continue;
      const events = await eventsOf(change, found, this.#deps, this.#statusIds);
      for (const event of events) await this.#deliver(event, origin);
    }
  }

  async #deliver(event: StreamEvent, origin: string): Promise<void> {
    const payloads = new Map<string, Promise<string | null>>();
    for (const session of [...this.#sessions]) {
      if (session.origin !== origin || session.closed) continue;
      const notifications = session.record?.grant.scopes.some((scope) => scope === 'read' || scope === 'read:notifications') ?? false;
      const targets = [...session.subscriptions.values()].filter((subscription) => matches(subscription, event.audience, notifications));
      if (targets.length === 0) continue;
      if (targets.some((subscription) => PRIVATE.includes(subscription.name)) && !(await this.#tokenStillWorks(session))) continue;
      // One payload per reader and context: the owner sees its favourites and bookmarks, each account its
      // filters, those of the timeline the stream is (home, notifications or public).
      const first = targets[0]!.name;
      const context = first === 'user' || first === 'list' ? 'home' : first === 'user:notification' ? 'notifications' : 'public';
      const key = `${session.record?.grant.accountId ?? ''} ${context}`;
      if (!payloads.has(key)) payloads.set(key, (async () => event.payload(session.record ? await viewerFor(this.#deps, session.record, context) : ANONYMOUS))());
      const payload = await payloads.get(key)!;
      if (payload === null) continue;
      for (const subscription of targets) this.#send(session, JSON.stringify({ stream: subscription.stream, event: event.event, payload }));
    }
  }
}
