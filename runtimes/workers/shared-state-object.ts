/**
 * The Durable Object that Worker isolates share (bound as `SHARED`, see wrangler.toml). Its methods are the
 * shared-state operations the isolates call over JS RPC (shared-state-client.ts). It also holds every
 * WebSocket (notifications, the Nostr relay, live reload, Mastodon streaming): the isolates forward upgrade
 * requests to its `fetch`, which runs the same app (same vars, same R2 bucket) with this object's own state as
 * the shared state, so the changes isolates publish reach its sockets, and channels created through an
 * isolate are found here.
 */
import { DurableObject, type DurableObjectState, type HibernatableWebSocket } from 'cloudflare:workers';
import type { App } from '../../src/app.ts';
import type { DueAgain } from '../../src/features/due-work.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { problemResponse } from '../../src/http/problem.ts';
import type { UpgradeAnswer } from '../../src/notifications/socket.ts';
import { CLOSE_TOO_BIG, isTooBigMessage } from '../../src/sockets/messages.ts';
import type { WorkerEnv } from './config.ts';
import { DurableSharedState } from './durable-shared-state.ts';
import { HibernatingSockets, isResumable } from './hibernating-sockets.ts';
import { sqliteEventArchive } from './nostr-archive.ts';
import { buildWorkerApp, log } from './worker-app.ts';

/** When a pass over the queued work failed (the storage did not answer), the next alarm comes after this. */
const RETRY_AFTER_FAILURE_MS = 60_000;
/** Storage key of when each queued work is due (ms since the epoch), so the alarm runs only the work that is. */
const DUE_WORK_KEY = 'svc:due-work';

/** The server end of a workerd WebSocketPair. */
interface WorkerSocket {
  accept(): void;
  send(text: string): void;
  close(code: number, reason: string): void;
  addEventListener(type: 'message', listener: (event: { data: string | ArrayBuffer }) => void): void;
  addEventListener(type: 'close' | 'error', listener: () => void): void;
}

const { WebSocketPair } = globalThis as unknown as { WebSocketPair: new () => { 0: WorkerSocket; 1: WorkerSocket } };

/** Connects an accepted socket's events to the core's handlers; `closed` is called once, however it ends. */
function runSocket(socket: WorkerSocket, answer: Extract<UpgradeAnswer, { accept: unknown }>): void {
  socket.accept();
  const handlers = answer.accept({ send: (text) => socket.send(text), close: (code, reason) => socket.close(code, reason) });
  let open = true;
  const closed = () => {
    if (!open) return;
    open = false;
    handlers.closed();
  };
  socket.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') return handlers.message(null);
    if (isTooBigMessage(event.data)) return socket.close(CLOSE_TOO_BIG, 'message too big');
    handlers.message(event.data);
  });
  socket.addEventListener('close', closed);
  socket.addEventListener('error', closed);
}

export class SharedStateObject extends DurableObject<WorkerEnv> {
  readonly #state: DurableSharedState;
  readonly #hibernating: HibernatingSockets;
  #app: App | ConfigError | undefined;
  /** The app has started and the sockets of an earlier instance are carried on: nothing is left to wait for. */
  #ready = false;

  constructor(ctx: DurableObjectState, env: WorkerEnv) {
    super(ctx, env);
    this.#state = new DurableSharedState(ctx.storage.sql);
    this.#hibernating = new HibernatingSockets(ctx);
  }

  add(key: string, amount: number, options?: { ttlMs?: number; max?: number }) {
    return this.#state.add(key, amount, options);
  }

  setIfAbsent(key: string, value: string, ttlMs?: number) {
    return this.#state.setIfAbsent(key, value, ttlMs);
  }

  get(key: string) {
    return this.#state.get(key);
  }

  set(key: string, value: string, ttlMs?: number) {
    return this.#state.set(key, value, ttlMs);
  }

  acquire(key: string, ttlMs: number, waitMs: number) {
    return this.#state.acquire(key, ttlMs, waitMs);
  }

  release(key: string, token: string) {
    this.#state.release(key, token);
  }

  /**
   * An isolate's message (a write's changes) for the app here. With sockets open, an instance of the object
   * that has just started (they hibernated) starts the app and carries them on first: they hear it too.
   */
  async publish(channel: string, message: string) {
    if (!this.#ready && this.ctx.getWebSockets().length > 0) await this.#started();
    return this.#state.publish(channel, message);
  }

  /**
   * `work` is due in `inMs` (Platform.scheduleDue): its due time is kept unless an earlier one is, and the
   * alarm is brought forward if it is set later, or not at all.
   */
  async scheduleDue(inMs: number, work: string): Promise<void> {
    const at = Date.now() + Math.max(0, inMs);
    const due = await this.#dueWork();
    if (!(due[work]! <= at)) {
      due[work] = at;
      await this.ctx.storage.put(DUE_WORK_KEY, due);
    }
    await this.#alarmBy(at);
  }

  /**
   * Does the queued work that is due (ActivityPub deliveries and their retries, the WebSockets' idle sweep),
   * only that, then sets the alarm for the next: a sweep does not list the delivery queue, nor the reverse.
   */
  async alarm(): Promise<void> {
    const app = await this.#started();
    if (app instanceof ConfigError || !app.runDue) return;
    const due = await this.#dueWork();
    const now = Date.now();
    const ready = Object.keys(due).filter((work) => due[work]! <= now);
    // Kept as due again after the retry delay while it runs: an object reset meanwhile loses none of it.
    const retryAt = now + RETRY_AFTER_FAILURE_MS;
    for (const work of ready) due[work] = retryAt;
    await this.ctx.storage.put(DUE_WORK_KEY, due);
    // Nothing due (an alarm set by a version that kept no due times): all the work runs.
    const asked = ready.length > 0 ? ready : undefined;
    let again: DueAgain[];
    try {
      again = await app.runDue(asked);
    } catch (error) {
      // The storage failed mid-pass: what was not done stays queued, due again after the retry delay.
      log(`svc: queued work failed, trying again in ${RETRY_AFTER_FAILURE_MS / 1000} s: ${error instanceof Error ? error.message : String(error)}`);
      if (!asked) await this.#alarmBy(retryAt);
      again = (asked ?? []).map((work) => [work, RETRY_AFTER_FAILURE_MS]);
    }
    if (asked) {
      // Each work run is due when it says, or when it was asked for meanwhile (earlier than the retry), or not at all.
      const after = await this.#dueWork();
      const next = new Map(again);
      for (const work of asked) {
        const meanwhile = after[work] !== undefined && after[work] < retryAt ? after[work] : undefined;
        const inMs = next.get(work);
        const at = inMs === undefined ? meanwhile : Math.min(meanwhile ?? Infinity, Date.now() + Math.max(0, inMs));
        if (at === undefined) delete after[work];
        else after[work] = at;
      }
      await this.ctx.storage.put(DUE_WORK_KEY, after);
    } else {
      for (const [work, inMs] of again) await this.scheduleDue(inMs, work);
    }
    // Work asked for meanwhile, or not due yet, keeps an alarm.
    const pending = Object.values(await this.#dueWork());
    if (pending.length > 0) await this.#alarmBy(Math.min(...pending));
  }

  async #dueWork(): Promise<Record<string, number>> {
    return (await this.ctx.storage.get<Record<string, number>>(DUE_WORK_KEY)) ?? {};
  }

  /** Sets the alarm for `at` unless it is set for then or earlier already. */
  async #alarmBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  #built(): App | ConfigError {
    return (this.#app ??= buildWorkerApp(this.env, this.#state, 'object', {
      scheduleDue: (inMs, work) => void this.scheduleDue(inMs, work),
      nostrArchive: sqliteEventArchive(this.ctx.storage.sql),
    }));
  }

  /** The app, started, with the sockets that outlived an earlier instance of the object carried on. */
  async #started(): Promise<App | ConfigError> {
    const app = this.#built();
    if (app instanceof ConfigError || this.#ready) return app;
    await app.init();
    await this.#hibernating.resumeAll(app);
    this.#ready = true;
    return app;
  }

  async webSocketMessage(socket: HibernatableWebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.#started();
    await this.#hibernating.message(socket, message);
  }

  async webSocketClose(socket: HibernatableWebSocket): Promise<void> {
    await this.#started();
    this.#hibernating.closed(socket);
  }

  async webSocketError(socket: HibernatableWebSocket): Promise<void> {
    await this.#started();
    this.#hibernating.closed(socket);
  }

  /** A WebSocket upgrade request forwarded by an isolate; a failure is answered as a problem, not workerd's bare 500. */
  async fetch(request: Request): Promise<Response> {
    try {
      return await this.#upgrade(request);
    } catch (error) {
      log(`svc: a WebSocket upgrade failed: ${error instanceof Error ? error.message : String(error)}`);
      return problemResponse(500, 'The WebSocket could not be opened; try again.', { type: 'urn:svc:problem:socket-failed' });
    }
  }

  async #upgrade(request: Request): Promise<Response> {
    // The app hears the isolates' changes from its start on: it must have started before a socket listens.
    const app = await this.#started();
    if (app instanceof ConfigError) return problemResponse(500, `The server is misconfigured: ${app.message}`, { type: 'urn:svc:problem:misconfigured' });
    const answer = await app.upgradeWebSocket?.(request);
    if (!answer) return problemResponse(404, 'There is no WebSocket endpoint at this URL.', { type: 'not-found' });
    if ('refuse' in answer) return answer.refuse;
    const pair = new WebSocketPair();
    try {
      // The relay's and the Mastodon streaming API's connections carry on through hibernation; the others keep
      // the object in memory while open.
      if (isResumable(answer)) this.#hibernating.accept(pair[1] as unknown as HibernatableWebSocket, answer, request);
      else runSocket(pair[1], answer);
    } catch (error) {
      // The socket's place in the budget is given back (a second cancel does nothing).
      answer.cancel?.();
      throw error;
    }
    // Like the other transports, agree to the client's first subprotocol (solid-0.1 clients require the echo).
    const protocol = request.headers.get('sec-websocket-protocol')?.split(',')[0]?.trim();
    return new Response(null, { status: 101, webSocket: pair[0], ...(protocol && { headers: { 'Sec-WebSocket-Protocol': protocol } }) } as ResponseInit);
  }
}
