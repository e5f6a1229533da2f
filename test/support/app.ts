import { createApp, type App } from '../../src/app.ts';
import type { Config } from '../../src/config/options.ts';
import type { Platform } from '../../src/platform.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

export const BASE = 'http://pod.test';

export interface TestApp {
  app: App;
  storage: StorageDriver;
  config: Config;
  logs: string[];
  /** `fetch` against the app with a path relative to BASE. */
  request(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * An app over the memory driver, configured as with command-line flags. Rate limits are off unless a test
 * turns them on. `platform` adds capabilities (an outbound fetch, a clock).
 */
export function makeApp(flags: Record<string, unknown> = {}, storage: StorageDriver = new MemoryDriver(), platform: Partial<Platform> = {}): TestApp {
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false, ...flags } });
  const logs: string[] = [];
  const app = createApp(config, { runtime: 'test', storage, log: (line) => logs.push(line), ...platform });
  return {
    app,
    storage,
    config,
    logs,
    request: async (path, init) => app.fetch(new Request(BASE + path, init)),
  };
}
