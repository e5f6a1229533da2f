import { join } from 'node:path';
import { freePort, startLocalProcess } from './local-process.ts';

const JONGODB_BIN = join(import.meta.dirname, '..', '..', 'node_modules', '@jongodb', 'memory-server-bin-linux-x64-gnu', 'bin', 'jongodb');

/** A MongoDB-wire server for a test: a jongodb process it starts, or the real `mongod` at MONGODB_URL. */
export interface TestDatabase {
  /** Connection string for the driver (`--docdb-url`). */
  url: string;
  /** A database name of its own, so runs against a shared mongod do not meet each other's documents. */
  database: string;
  /** False against MONGODB_URL: a real mongod is not stopped by tests. */
  restartable: boolean;
  /** Kills the server process (an outage). */
  stop(): Promise<void>;
  /** Starts it again on the same port, with empty data. */
  start(): Promise<void>;
}

export const usingRealMongod = Boolean(process.env.MONGODB_URL);

/** Starts a database for one test file (stop it in afterAll). */
export async function startTestDatabase(): Promise<TestDatabase> {
  const database = `svc_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  if (process.env.MONGODB_URL) {
    return { url: process.env.MONGODB_URL, database, restartable: false, stop: async () => undefined, start: async () => undefined };
  }
  const port = await freePort();
  const server = await startLocalProcess({ name: 'jongodb', command: JONGODB_BIN, args: ['--host=127.0.0.1', `--port=${port}`, '--database=solid'], readyText: 'JONGODB_URI=' });
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    database,
    restartable: true,
    stop: () => server.stop(),
    start: () => server.start(),
  };
}
