/**
 * StreamingHTTPChannel2023 as Community Solid Server offers it: every resource answer links
 * (`rel="…#updatesViaStreamingHttp2023"`) to a `receiveFrom` URL for it, and a GET there, with the caller's
 * credentials, answers with a body that never ends: one notification per change of the resource, as long as
 * the caller may read it (checked when it connects and before each notification). A stream that had nothing
 * to say for a ping interval writes one byte of whitespace, so a reader that vanished without closing fails a
 * write and gives its place back.
 */
import { DataFactory, Writer } from 'n3';
import { negotiate, parseAccept } from '../http/accept.ts';
import { HttpProblem } from '../http/problem.ts';
import { JSON_LD, TURTLE } from '../rdf/media.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import { CLOSE_TOO_SLOW, MAX_BUFFERED_BYTES, type SocketLike } from './socket.ts';
import { isReported, notificationFor, NOTIFY } from './channel2023.ts';
import { STREAMING_PATH } from './discovery.ts';
import type { NotificationHub, StateLookup, Subscriber, TopicEvent } from './hub.ts';
import { ReadCheck, requesterOf } from './read-check.ts';
import type { LongLivedConnections } from '../sockets/guard.ts';

const AS = 'https://www.w3.org/ns/activitystreams#';
const XSD_DATE_TIME = 'http://www.w3.org/2001/XMLSchema#dateTime';
const { namedNode, literal, quad } = DataFactory;

/** One notification in Turtle, the triples its JSON-LD form stands for under the two contexts. */
export function notificationTurtle(notification: Record<string, unknown>): string {
  const subject = namedNode(notification.id as string);
  const quads = [quad(subject, namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), namedNode(AS + (notification.type as string)))];
  quads.push(quad(subject, namedNode(`${AS}object`), namedNode(notification.object as string)));
  if (typeof notification.target === 'string') quads.push(quad(subject, namedNode(`${AS}target`), namedNode(notification.target)));
  if (typeof notification.state === 'string') quads.push(quad(subject, namedNode(`${NOTIFY}state`), literal(notification.state)));
  quads.push(quad(subject, namedNode(`${AS}published`), literal(notification.published as string, namedNode(XSD_DATE_TIME))));
  const writer = new Writer({ prefixes: { as: AS, notify: NOTIFY } });
  writer.addQuads(quads);
  let text = '';
  writer.end((error, result: string) => {
    if (error) throw error;
    text = result;
  });
  return text;
}

export interface StreamingDeps {
  hub: NotificationHub;
  access: AccessControl;
  /** The budget every long-lived connection shares (FeatureContext.sockets): a stream holds a place in it as a WebSocket does. */
  sockets: LongLivedConnections;
  stateOf: StateLookup;
  now(): number;
  /** Storage path of a topic URL on this server; throws an HttpProblem (404) for the server's own files. */
  pathOf(url: URL): string;
  urlOf(path: string, origin: string): string;
}

export interface Streaming {
  /** Answers a GET on a `receiveFrom` URL (`env` as the runtime passed it): the stream, or a problem. */
  open(request: Request, caller: Caller, env: unknown): Promise<Response>;
  /** Ends every open stream (the server is stopping). */
  closeAll(): void;
}

const encoder = new TextEncoder();

/**
 * Whitespace valid between notifications: a blank line in Turtle (the stream so far stays a Turtle
 * document); a space in JSON-LD, which starts the next line and makes no empty one (JSON.parse skips it).
 */
const KEEP_ALIVE: Record<string, string> = { [TURTLE]: '\n', [JSON_LD]: ' ' };

export function createStreaming(deps: StreamingDeps): Streaming {
  const closers = new Set<() => void>();
  /** Each open stream's keep-alive; one timer runs them while any is open. */
  const keepAlives = new Set<() => void>();
  let keepAliveTimer: ReturnType<typeof setInterval> | undefined;
  const keepAlive = (stream: () => void) => {
    keepAlives.add(stream);
    keepAliveTimer ??= setInterval(() => {
      for (const each of keepAlives) each();
    }, deps.sockets.pingIntervalMs);
  };
  const stopKeepAlive = (stream: () => void) => {
    keepAlives.delete(stream);
    if (keepAlives.size > 0) return;
    clearInterval(keepAliveTimer);
    keepAliveTimer = undefined;
  };

  async function open(request: Request, caller: Caller, env: unknown): Promise<Response> {
    const url = new URL(request.url);
    let topic: URL;
    try {
      topic = new URL(decodeURIComponent(url.pathname.slice(STREAMING_PATH.length)));
    } catch {
      throw new HttpProblem(404, 'A receiveFrom URL names its topic, percent-encoded, after the stream path.', { type: 'not-found' });
    }
    const origin = url.origin;
    if (topic.origin !== origin) throw new HttpProblem(404, `Streams here are of resources on this server (${origin}).`, { type: 'not-found' });
    topic.hash = '';
    topic.search = '';
    const path = deps.pathOf(topic);
    await deps.access.require(caller, [{ path, anyOf: ['read'] }]);
    const admission = deps.sockets.admit(request, env);
    if ('refuse' in admission) return admission.refuse;

    const type = negotiate(parseAccept(request.headers.get('accept')), [TURTLE, JSON_LD]) ?? TURTLE;
    const serialize = type === JSON_LD ? (notification: Record<string, unknown>) => JSON.stringify(notification) + '\n' : notificationTurtle;
    const urlOf = (storagePath: string) => deps.urlOf(storagePath, origin);
    const read = new ReadCheck(deps.access, requesterOf(caller), path, deps.now);
    let ended = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;

    const end = () => {
      if (ended) return;
      ended = true;
      deps.hub.unsubscribe(path, subscriber);
      closers.delete(close);
      stopKeepAlive(idleWrite);
      connection.closed();
    };
    const close = () => {
      if (ended) return;
      end();
      controller.close();
    };
    // The body as a socket for the guard: what it holds queued unread counts with the unsent bytes of every
    // WebSocket, and a reader too far behind (1 MB, or the furthest behind past --max-socket-buffers) is cut off.
    const body = new ReadableStream<Uint8Array>(
      {
        start(streamController) {
          controller = streamController;
        },
        cancel: end,
      },
      { highWaterMark: MAX_BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
    );
    const raw: SocketLike = {
      send: (text) => controller.enqueue(encoder.encode(text)),
      close: (code) => {
        if (ended) return;
        end();
        if (code === CLOSE_TOO_SLOW) controller.error(new Error('reader too slow'));
        else controller.close();
      },
      get bufferedAmount() {
        return MAX_BUFFERED_BYTES - (controller.desiredSize ?? MAX_BUFFERED_BYTES);
      },
    };
    const connection = deps.sockets.watch(raw, admission.ticket);
    let spoke = false;
    const send = (notification: Record<string, unknown>) => {
      if (ended) return;
      spoke = true;
      connection.socket.send(serialize(notification));
    };
    const idleWrite = () => {
      if (!spoke && !ended) connection.socket.send(KEEP_ALIVE[type]!);
      spoke = false;
    };
    const subscriber: Subscriber = {
      async deliver(events: readonly TopicEvent[], { stateOf, accessVersion }) {
        if (ended || !events.some(isReported)) return;
        if (!(await read.allowed(await accessVersion()))) return close();
        for (const event of events) if (isReported(event)) send(await notificationFor(event, urlOf, stateOf));
      },
    };

    deps.hub.subscribe(path, subscriber);
    closers.add(close);
    keepAlive(idleWrite);
    try {
      // As CSS does: first what the topic is now, so a reader can tell whether it missed a change.
      const state = await deps.stateOf(path);
      const initial: TopicEvent = { topic: path, object: path, activity: state === undefined ? 'Delete' : 'Update', published: deps.now() };
      send(await notificationFor(initial, urlOf, async () => state));
    } catch (error) {
      end();
      throw error;
    }
    return new Response(body, {
      headers: { 'Content-Type': type, 'Cache-Control': 'no-store' },
    });
  }

  return {
    open,
    closeAll: () => {
      for (const close of [...closers]) close();
    },
  };
}
