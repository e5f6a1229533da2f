/** Configuration of the Worker from its env: `SVC_*` vars are options, bindings pick the storage. */
import { envNameOf, OPTIONS, type Config, type OptionSpec } from '../../src/config/options.ts';
import { ConfigError, resolveConfig, unknownEnvironmentWarnings } from '../../src/config/resolve.ts';
import type { R2BucketLike } from '../../storage-drivers/r2.ts';

/** Name of the R2 binding that holds the resources (see wrangler.toml). */
export const BUCKET_BINDING = 'PODS';

/** Name of the Durable Object binding of the shared state (see wrangler.toml and shared-state-object.ts). */
export const SHARED_BINDING = 'SHARED';

export type WorkerEnv = Record<string, unknown>;

/** The slice of a Durable Object namespace binding the Worker uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): unknown;
}

export function isDurableObjectNamespace(value: unknown): value is DurableObjectNamespaceLike {
  return typeof value === 'object' && value !== null && typeof (value as DurableObjectNamespaceLike).idFromName === 'function' && typeof (value as DurableObjectNamespaceLike).get === 'function';
}

/** The part of the Workers ExecutionContext the app may use. */
export interface WorkerExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

function isBucket(value: unknown): value is R2BucketLike {
  return typeof value === 'object' && value !== null && typeof (value as R2BucketLike).put === 'function' && typeof (value as R2BucketLike).list === 'function';
}

/** A var's value as an option reads it: wrangler.toml's `[vars]` may hold a TOML boolean or number (`SVC_PUBLIC = true`). */
function varText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  return undefined;
}

/** The Worker's vars as text; bindings (buckets, Durable Object namespaces) and other objects are left out. */
function optionVars(env: WorkerEnv): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const text = varText(value);
    if (text !== undefined) vars[name] = text;
  }
  return vars;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'number') return 'a number that is not finite';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Warnings about the Worker's `SVC_*` vars: names of no option (a misspelling would leave its option at the
 * default without a word, as on Node), and options given a value that is no text, number or boolean (a TOML
 * table or array under `[vars]`), which are ignored.
 */
export function workerVarWarnings(env: WorkerEnv): string[] {
  const options = new Set((OPTIONS as readonly OptionSpec[]).map(envNameOf));
  const ignored = Object.entries(env)
    .filter(([name, value]) => options.has(name) && varText(value) === undefined)
    .map(([name, value]) => `warning: ${name} is ${kindOf(value)} in the Worker's vars and is ignored: give it as text, a number or a boolean (e.g. ${name} = "..." under [vars] in wrangler.toml).`);
  return [...unknownEnvironmentWarnings(env), ...ignored];
}

/** Resolves the configuration from the Worker's vars; storage defaults to r2 when a bucket is bound. */
export function workerConfig(env: WorkerEnv): Config {
  const vars = optionVars(env);
  const bucket = isBucket(env[BUCKET_BINDING]);
  if (!vars.SVC_STORAGE) vars.SVC_STORAGE = bucket ? 'r2' : 'memory';
  // Counting every request would send every request of the deployment to the one Durable Object; Cloudflare's
  // own rate limiting rules do that at the edge. The other per-address rules count only logins and writes.
  vars.SVC_RATE_LIMIT_REQUESTS ??= '0';
  const config = resolveConfig({ env: vars });
  if (config.storage === 'fs') {
    throw new ConfigError('SVC_STORAGE=fs (--storage fs) is not available on the workers runtime: there is no file system. Use r2 (bind an R2 bucket as PODS) or memory.');
  }
  if (config.storage === 's3') {
    throw new ConfigError(`SVC_STORAGE=s3 (--storage s3) is not available on the workers runtime: R2 is its native storage. Bind an R2 bucket as ${BUCKET_BINDING} (see wrangler.toml) and use r2.`);
  }
  if (config.storage === 'r2' && !bucket) {
    throw new ConfigError(`SVC_STORAGE=r2 (--storage r2) needs an R2 bucket bound as ${BUCKET_BINDING} on the workers runtime (see wrangler.toml).`);
  }
  if (config.sslKey || config.sslCert) {
    throw new ConfigError('SVC_SSL_KEY / SVC_SSL_CERT (--ssl-key, --ssl-cert) are not available on the workers runtime: Cloudflare terminates TLS.');
  }
  // Advertising Updates-Via and a subscription service whose sockets cannot connect would mislead clients.
  if (config.notifications && !isDurableObjectNamespace(env[SHARED_BINDING])) {
    throw new ConfigError(
      `SVC_NOTIFICATIONS (--notifications) on the workers runtime needs the shared-state Durable Object bound as ${SHARED_BINDING} (see wrangler.toml): it holds the WebSockets, since an isolate cannot keep one open between requests. Bind it, or remove SVC_NOTIFICATIONS.`,
    );
  }
  // Deliveries and their retries run on the object's alarm: without it nothing queued would ever be sent.
  if (config.activitypub && !isDurableObjectNamespace(env[SHARED_BINDING])) {
    throw new ConfigError(
      `SVC_ACTIVITYPUB (--activitypub) on the workers runtime needs the shared-state Durable Object bound as ${SHARED_BINDING} (see wrangler.toml): its alarm sends the queued deliveries and their retries, since an isolate's timers end with its request. Bind it, or remove SVC_ACTIVITYPUB.`,
    );
  }
  // The relay's sockets and events live in the object (hibernating sockets, events in its SQLite storage).
  if (config.nostr && !isDurableObjectNamespace(env[SHARED_BINDING])) {
    throw new ConfigError(
      `SVC_NOSTR (--nostr) on the workers runtime needs the shared-state Durable Object bound as ${SHARED_BINDING} (see wrangler.toml): it holds the relay's WebSockets and keeps its events in its SQLite storage, since an isolate keeps nothing between requests. Bind it, or remove SVC_NOSTR.`,
    );
  }
  // Workers share state through Cloudflare's own bindings, not a TCP client (see docs/scale-out.md).
  if (config.redisUrl) {
    throw new ConfigError(`SVC_REDIS_URL (--redis-url) is not available on the workers runtime: a Worker cannot hold a Redis connection. Its isolates share state through the Durable Object bound as ${SHARED_BINDING} instead (see docs/scale-out.md). Remove SVC_REDIS_URL.`);
  }
  // Pages would carry a script whose socket never connects.
  if (config.liveReload && !isDurableObjectNamespace(env[SHARED_BINDING])) {
    throw new ConfigError(
      `SVC_LIVE_RELOAD (--live-reload) on the workers runtime needs the shared-state Durable Object bound as ${SHARED_BINDING} (see wrangler.toml): it holds the pages' WebSockets, since an isolate cannot keep one open between requests. Bind it, or remove SVC_LIVE_RELOAD.`,
    );
  }
  // The pod is made on the first request, and its owner's token printed nowhere a Worker's owner reads, with
  // no `svc token` to mint another: the owner trades the secret for one instead.
  if (config.singleUser && config.singleUserSecret === undefined) {
    throw new ConfigError(
      'SVC_SINGLE_USER (--single-user) on the workers runtime needs SVC_SINGLE_USER_SECRET: a Worker has no startup output to print the owner token to, nor `svc token`. Set a secret of at least 32 characters with `wrangler secret put SVC_SINGLE_USER_SECRET`, then get the owner token with `curl -X POST -H "Authorization: Bearer <secret>" https://<host>/.pods/owner-token` (see docs/runtimes.md).',
    );
  }
  return config;
}
