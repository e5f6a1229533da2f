import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** How to run a server process a test needs (redis-server, jongodb) and how to tell it is ready. */
export interface ProcessSpec {
  /** Names it in errors. */
  name: string;
  command: string;
  args: readonly string[];
  /** Text its standard output prints once it accepts connections. */
  readyText: string;
  /** Added to the error when the command cannot be run at all (where it comes from). */
  missingHint?: string;
}

function launch(spec: ProcessSpec): Promise<ChildProcess> {
  const child = spawn(spec.command, spec.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.name} did not start:\n${output}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes(spec.readyText)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('error', (error) => reject(new Error(`${spec.name} could not be run${spec.missingHint ? ` (${spec.missingHint})` : ''}: ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`${spec.name} exited (${code}):\n${output}`)));
  });
}

/** A started server process that a test can kill (an outage) and start again with the same arguments. */
export interface LocalProcess {
  /** Kills the process by its PID and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again (no-op while it runs). */
  start(): Promise<void>;
}

export async function startLocalProcess(spec: ProcessSpec): Promise<LocalProcess> {
  let child: ChildProcess | null = await launch(spec);
  return {
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      process.kill(running.pid!, 'SIGKILL');
      await exited;
    },
    async start() {
      child ??= await launch(spec);
    },
  };
}
