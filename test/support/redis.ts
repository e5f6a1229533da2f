import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A `redis-server` process of one test file, on a free loopback port, with no persistence. */
export interface TestRedis {
  /** For `--redis-url`. */
  url: string;
  /** Kills the process by its PID (an outage). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => reject(new Error(`redis-server could not be run (scripts/setup-system.sh installs it): ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
  });
}

/** Starts Redis for one test file (stop it in afterAll). */
export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | null = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      process.kill(running.pid!, 'SIGKILL');
      await exited;
    },
    async start() {
      child ??= await launch(port);
    },
  };
}
