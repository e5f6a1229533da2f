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
