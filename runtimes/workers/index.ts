/**
 * Cloudflare Workers entry: the same app as on Node, configured from the Worker's string vars (`SVC_*`,
 * as in the option table) and storing resources in the R2 bucket bound as `PODS`, or in isolate memory
 * when no bucket is bound. The app is built once per isolate, on the first request.
 */
import { createApp, type App } from '../../src/app.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError, startupNotices } from '../../src/config/resolve.ts';
import { problemResponse } from '../../src/http/problem.ts';
import type { Platform } from '../../src/platform.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { R2Driver, type R2BucketLike } from '../../storage-drivers/r2.ts';
import { workersOutboundFetch } from './outbound-fetch.ts';
import { BUCKET_BINDING, workerConfig, type WorkerEnv, type WorkerExecutionContext } from './config.ts';

// Only the default export may live here: workerd treats every named export of the main module as an entrypoint.

function openStorage(config: Config, env: WorkerEnv): StorageDriver {
  return config.storage === 'r2' ? new R2Driver(env[BUCKET_BINDING] as R2BucketLike) : new MemoryDriver();
}

function log(line: string): void {
  console.log(line);
}

let app: App | undefined;
let startupError: ConfigError | undefined;

/** Builds the app on the first request of an isolate; a configuration error is reported on every request. */
function appFor(env: WorkerEnv): App | ConfigError {
  if (app) return app;
  if (startupError) return startupError;
  try {
    const config = workerConfig(env);
    for (const notice of startupNotices(config)) log(notice);
    const platform: Platform = { runtime: 'workers', storage: openStorage(config, env), log, now: () => Date.now(), fetch: workersOutboundFetch(config.allowPrivateFetch) };
    app = createApp(config, platform);
    return app;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    startupError = error;
    log(`svc: ${error.message}`);
    return error;
  }
}

export default {
  fetch(request: Request, env: WorkerEnv, ctx: WorkerExecutionContext): Response | Promise<Response> {
    const current = appFor(env);
    if (current instanceof ConfigError) {
      return problemResponse(500, `The server is misconfigured: ${current.message}`, { type: 'urn:svc:problem:misconfigured' });
    }
    return answer(current, request, env, ctx);
  },
};

/** An unread request body up to this size is read to its end before answering; a larger one is cancelled. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/**
 * A request answered without reading its body (a 401, 403 or 412 before the write) leaves the body unread,
 * and behind the `wrangler dev` proxy the next request on that connection then fails with a 503 "worker
 * restarted mid-request" or hangs (cancelling the body does not help; reading it does). So the rest of a
 * small body is read before the answer goes out.
 */
async function discardUnread(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  const reader = request.body.getReader();
  try {
    for (let read = 0; read <= DRAIN_LIMIT_BYTES; ) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing is left to read.
  }
}

async function answer(app: App, request: Request, env: WorkerEnv, ctx: WorkerExecutionContext): Promise<Response> {
  const response = await app.fetch(request, env, ctx);
  await discardUnread(request);
  return response;
}
