/**
 * Cloudflare Workers entry: the same app as on Node, configured from the Worker's string vars (`SVC_*`,
 * as in the option table) and storing resources in the R2 bucket bound as `PODS`, or in isolate memory
 * when no bucket is bound. The app is built once per isolate, on the first request. With the Durable Object
 * bound as `SHARED`, the isolates share their state through it, and it holds the notification WebSockets.
 */
import type { App } from '../../src/app.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { problemResponse } from '../../src/http/problem.ts';
import { isDurableObjectNamespace, SHARED_BINDING, workerVarWarnings, type WorkerEnv, type WorkerExecutionContext } from './config.ts';
import { durableObjectScheduler, durableObjectSharedState, sharedObjectStub } from './shared-state-client.ts';
import { buildWorkerApp, log } from './worker-app.ts';

// workerd treats every named export of the main module as an entrypoint: a Durable Object class must be one.
export { SharedStateObject } from './shared-state-object.ts';

let app: App | ConfigError | undefined;

/** The app of this isolate: with the `SHARED` object bound, it shares state through it, and the object's alarm works the queues. */
function buildIsolateApp(env: WorkerEnv): App | ConfigError {
  // Here only, not in the Durable Object too: the object reads the same vars.
  for (const warning of workerVarWarnings(env)) log(warning);
  const namespace = env[SHARED_BINDING];
  if (!isDurableObjectNamespace(namespace)) return buildWorkerApp(env, undefined, 'isolate');
  return buildWorkerApp(env, durableObjectSharedState(namespace), 'isolate', { scheduleDue: durableObjectScheduler(namespace, log) });
}

function isWebSocketRequest(request: Request): boolean {
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

export default {
  fetch(request: Request, env: WorkerEnv, ctx: WorkerExecutionContext): Response | Promise<Response> {
    app ??= buildIsolateApp(env);
    if (app instanceof ConfigError) {
      return problemResponse(500, `The server is misconfigured: ${app.message}`, { type: 'urn:svc:problem:misconfigured' });
    }
    // A feature takes WebSockets (notifications, which the configuration allows only with the object bound): the object holds them.
    const namespace = env[SHARED_BINDING];
    if (app.upgradeWebSocket && isWebSocketRequest(request) && isDurableObjectNamespace(namespace)) {
      return sharedObjectStub<{ fetch(request: Request): Promise<Response> }>(namespace).fetch(request);
    }
    return answer(app, request, env, ctx);
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
