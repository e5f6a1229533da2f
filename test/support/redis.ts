import { afterAll, beforeAll } from 'vitest';
import type { SharedState } from '../../src/cluster/shared-state.ts';
import { openRedisSharedState } from '../../runtimes/node/redis-shared-state.ts';
import { freePort, startLocalProcess } from './local-process.ts';

/** A `redis-server` process of one test file, on a free loopback port, with no persistence. */
export interface TestRedis {
  /** For `--redis-url`. */
  url: string;
  /** Kills the process by its PID (an outage). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

/** Starts Redis for one test file (stop it in afterAll). */
export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  const server = await startLocalProcess({
    name: 'redis-server',
    command: 'redis-server',
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    readyText: 'Ready to accept connections',
    missingHint: 'scripts/setup-system.sh installs it',
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.stop(), start: () => server.start() };
}

/** The Redis of a test file, with the shared states (one per instance) connected to it. */
export interface TestRedisConnections extends TestRedis {
  /** A new connection, as one instance of the server opens it with --redis-url; closed after the file's tests. */
  connect(log?: (line: string) => void): Promise<SharedState>;
}

/**
 * Redis for the test file that calls this at its top level: started before its tests; after them the
 * connections `connect` opened are closed, then Redis is stopped.
 */
export function useTestRedis(): TestRedisConnections {
  let redis: TestRedis | undefined;
  const states: SharedState[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const state of states) await state.close();
    await redis?.stop();
  });
  const started = (): TestRedis => {
    if (!redis) throw new Error('Redis starts in beforeAll: use it inside hooks and tests');
    return redis;
  };
  return {
    get url() {
      return started().url;
    },
    stop: () => started().stop(),
    start: () => started().start(),
    async connect(log = () => undefined) {
      const state = await openRedisSharedState(started().url, log);
      states.push(state);
      return state;
    },
  };
}
