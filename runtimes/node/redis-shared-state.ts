/**
 * `--redis-url`: the state several instances share, on Redis (ioredis). Node, Deno and Bun use this file
 * (through their Node compatibility). Every command fails fast while Redis is away (no offline queue), as
 * SharedStateUnavailable, so requests that need it get 503; the client reconnects on its own.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { SharedStateUnavailable, type SharedState } from '../../src/cluster/shared-state.ts';
import { ConfigError } from '../../src/config/resolve.ts';

const KEY_PREFIX = 'svc:';
/** A command that takes longer than this counts as Redis being unavailable. */
const COMMAND_TIMEOUT_MS = 5000;
/** How long a caller waits for a lock held by others before giving up with 503. */
const LOCK_WAIT_MS = 30_000;

/** Counter add, atomic: see SharedState.add. Replies nil when `max` refuses the increase, else {value, pttl}. */
const ADD_SCRIPT = `
local amount = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if max and amount > 0 and current + amount > max then return false end
local value = redis.call('INCRBY', KEYS[1], amount)
if ttl then
  if value <= 0 then
    redis.call('DEL', KEYS[1])
    return {value, -2}
  end
  if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
end
return {value, redis.call('PTTL', KEYS[1])}
`;

/** Deletes the lock only if this holder still has it (it may have expired and been taken by another). */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function unavailable(error: unknown): SharedStateUnavailable {
  return new SharedStateUnavailable(`Redis did not answer: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

async function guarded<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    throw unavailable(error);
  }
}

function clientOptions(log: (line: string) => void, role: string, closing: () => boolean) {
  let down = false;
  return {
    options: {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
    },
    watch(client: Redis) {
      const lost = (reason: string) => {
        if (down || closing()) return;
        down = true;
        log(`redis (${role}): ${reason}; requests that need shared state get 503 until it is back.`);
      };
      client.on('error', (error: Error) => lost(error.message));
      client.on('close', () => lost('connection closed'));
      client.on('ready', () => {
        if (!down) return;
        down = false;
        log(`redis (${role}): connected again.`);
      });
    },
  };
}

/** Connects to Redis at `url` (refused at startup, with the reason, when it cannot be reached). */
export async function openRedisSharedState(url: string, log: (line: string) => void): Promise<SharedState> {
  let closing = false;
  const commandsSetup = clientOptions(log, 'commands', () => closing);
  const client = new Redis(url, commandsSetup.options);
  const eventsSetup = clientOptions(log, 'events', () => closing);
  // A connection in subscriber mode takes no other commands; ioredis subscribes it again after a reconnect.
  const subscriber = new Redis(url, { ...eventsSetup.options, enableOfflineQueue: true });
  try {
    await Promise.all([client.connect(), subscriber.connect()]);
  } catch (error) {
    client.disconnect();
    subscriber.disconnect();
    throw new ConfigError(`Cannot reach Redis at --redis-url ${url}: ${(error as Error).message}`);
  }
  commandsSetup.watch(client);
  eventsSetup.watch(subscriber);

  const listeners = new Map<string, Set<(message: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const listener of listeners.get(channel) ?? []) listener(message);
  });
  const key = (name: string) => KEY_PREFIX + name;

  return {
    add: (name, amount, options = {}) =>
      guarded(async () => {
        const reply = (await client.eval(ADD_SCRIPT, 1, key(name), amount, options.ttlMs ?? '', options.max ?? '')) as [number, number] | null;
        if (reply === null) return null;
        const [value, pttl] = reply;
        return { value, ttlMs: pttl >= 0 ? pttl : null };
      }),
    setIfAbsent: (name, value, ttlMs) => guarded(async () => (ttlMs === undefined ? await client.set(key(name), value, 'NX') : await client.set(key(name), value, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK'),
    get: (name) => guarded(() => client.get(key(name))),
    set: (name, value, ttlMs) =>
      guarded(async () => {
        if (ttlMs === undefined) await client.set(key(name), value);
        else await client.set(key(name), value, 'PX', Math.max(1, Math.ceil(ttlMs)));
      }),
    async lock(name, ttlMs) {
      const token = randomBytes(12).toString('hex');
      const lockKey = key(`lock:${name}`);
      const giveUpAt = Date.now() + LOCK_WAIT_MS;
      for (let wait = 2; ; wait = Math.min(wait * 2, 20)) {
        if ((await guarded(() => client.set(lockKey, token, 'PX', ttlMs, 'NX'))) === 'OK') break;
        if (Date.now() > giveUpAt) throw new SharedStateUnavailable(`The shared lock ${name} stayed taken for ${LOCK_WAIT_MS / 1000} s.`);
        await pause(wait);
      }
      return async () => {
        // The work under the lock is done: when Redis cannot be told, the lock's expiry frees it.
        await client.eval(RELEASE_SCRIPT, 1, lockKey, token).catch(() => undefined);
      };
    },
    publish: (channel, message) => guarded(async () => void (await client.publish(key(channel), message))),
    subscribe: (channel, listener) =>
      guarded(async () => {
        const name = key(channel);
        let set = listeners.get(name);
        if (!set) {
          listeners.set(name, (set = new Set()));
          await subscriber.subscribe(name);
        }
        set.add(listener);
      }),
    async close() {
      closing = true;
      await Promise.allSettled([client.quit(), subscriber.quit()]);
    },
  };
}
