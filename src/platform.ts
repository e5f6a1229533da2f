import type { StorageDriver } from './storage/types.ts';

/** Everything the core needs from the runtime it runs on. `src/` asks; `runtimes/*` supply. */
export interface Platform {
  /** Name of the runtime, for messages: node, deno, bun, workers. */
  readonly runtime: string;
  readonly storage: StorageDriver;
  /** One line of log output (the request log and startup notices). */
  log(line: string): void;
  /** Milliseconds since the epoch; injectable so tests control time. */
  now?(): number;
  /** Address of the peer that sent a request; `env` is what the runtime passed to `fetch` with it. */
  clientAddress?(request: Request, env: unknown): string | undefined;
}
