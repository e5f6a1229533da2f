/**
 * The shared state of a Worker isolate: every operation is a call (JS RPC) to the one Durable Object bound as
 * `SHARED` (shared-state-object.ts), which performs it atomically. One round trip per operation, and one
 * object's throughput for the whole deployment.
 *
 * An isolate cannot hear messages: I/O objects belong to the request that made them, so nothing can stay
 * subscribed between requests. `publish` reaches the object, whose app holds the WebSockets; `subscribe`
 * rejects (see SharedState.hearsOthers).
 */
import { waitUntil } from 'cloudflare:workers';
import { SharedStateUnavailable, type SharedState } from '../../src/cluster/shared-state.ts';
import type { DurableObjectNamespaceLike } from './config.ts';
import { LOCK_WAIT_MS } from './durable-shared-state.ts';


/** The one object every isolate talks to. Sharding by pod would name one object per pod root here. */
export const SHARED_OBJECT_NAME = 'shared-state';

/** The object's methods as a stub offers them (shared-state-object.ts): every call answers asynchronously. */
interface Stub {
  add(key: string, amount: number, options?: { ttlMs?: number; max?: number }): Promise<{ value: number; ttlMs: number | null } | null>;
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  acquire(key: string, ttlMs: number, waitMs: number): Promise<string | null>;
  release(key: string, token: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  scheduleDue(inMs: number, work: string): Promise<void>;
}

/** The stub of the shared object (a stub is no I/O object, but it is cheap: one per operation keeps requests apart). */
export function sharedObjectStub<T>(namespace: DurableObjectNamespaceLike): T {
  return namespace.get(namespace.idFromName(SHARED_OBJECT_NAME)) as T;
}

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new SharedStateUnavailable(`The shared-state Durable Object did not answer: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

export function durableObjectSharedState(namespace: DurableObjectNamespaceLike): SharedState {
  const stub = () => sharedObjectStub<Stub>(namespace);
  return {
    hearsOthers: false,
    add: (key, amount, options) => guarded(() => stub().add(key, amount, options)),
    setIfAbsent: (key, value, ttlMs) => guarded(() => stub().setIfAbsent(key, value, ttlMs)),
    get: (key) => guarded(() => stub().get(key)),
    set: (key, value, ttlMs) => guarded(() => stub().set(key, value, ttlMs)),
    async lock(key, ttlMs) {
      const token = await guarded(() => stub().acquire(key, ttlMs, LOCK_WAIT_MS));
      if (token === null) throw new SharedStateUnavailable(`The shared lock ${key} stayed taken for ${LOCK_WAIT_MS / 1000} s.`);
      // The work under the lock is done: when the object cannot be told, the lock's expiry frees it.
      return async () => void (await stub().release(key, token).catch(() => undefined));
    },
    publish(channel, message) {
      const sent = guarded(() => stub().publish(channel, message));
      // Senders do not wait for it (see FanOut.send); the request's context must outlive it all the same.
      waitUntil(sent.catch(() => undefined));
      return sent;
    },
    subscribe: async () => {
      throw new Error('A Workers isolate cannot hear other isolates: only the shared-state Durable Object listens (see docs/scale-out.md).');
    },
    close: async () => {},
  };
}

/**
 * Platform.scheduleDue of an isolate: the object's alarm calls the app's `runDue` (deliveries queued through
 * any isolate are made by the object). Not awaited by the caller; the request's context outlives the call.
 */
export function durableObjectScheduler(namespace: DurableObjectNamespaceLike, log: (line: string) => void): (inMs: number, work: string) => void {
  return (inMs, work) => {
    const told = sharedObjectStub<Stub>(namespace)
      .scheduleDue(inMs, work)
      .catch((error: unknown) => log(`svc: could not set the Durable Object's alarm for queued work: ${error instanceof Error ? error.message : String(error)}`));
    waitUntil(told);
  };
}
