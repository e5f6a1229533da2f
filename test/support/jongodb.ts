import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

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

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(JONGODB_BIN, ['--host=127.0.0.1', `--port=${port}`, '--database=solid'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`jongodb did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('JONGODB_URI=')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`jongodb exited (${code}):\n${output}`)));
  });
}

/** Starts a database for one test file (stop it in afterAll). */
export async function startTestDatabase(): Promise<TestDatabase> {
  const database = `svc_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  if (process.env.MONGODB_URL) {
    return { url: process.env.MONGODB_URL, database, restartable: false, stop: async () => undefined, start: async () => undefined };
  }
  const port = await freePort();
  let child: ChildProcess | null = await launch(port);
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    database,
    restartable: true,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      child = null;
    },
    async start() {
      child = await launch(port);
    },
  };
}
