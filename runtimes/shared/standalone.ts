/**
 * What the Deno and Bun entry points share: options from the same table as `svc start` (flags, `SVC_*`
 * environment, `-c` config file), the startup refusals of what a runtime cannot offer, and the storage.
 * File access goes through each runtime's Node compatibility (`node:fs`), so the fs driver is the very
 * driver Node uses: same file layout, same atomic create-only and replace.
 */
import { createApp, type App } from '../../src/app.ts';
import { flagSpecsOf, parseFlagWords } from '../../src/config/flags.ts';
import { OPTIONS, type Config } from '../../src/config/options.ts';
import { ConfigError, startupNotices, unknownEnvironmentWarnings } from '../../src/config/resolve.ts';
import { clientBaseUrl } from '../../src/http/public-origin.ts';
import type { Platform } from '../../src/platform.ts';
import { singleUserNotice } from '../../src/pods/single-user.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { descriptorLimit } from '../node/descriptor-limit.ts';
import { loadConfig } from '../node/load-config.ts';
import { openOptionalParts, storageNotices, tlsFilesOf } from '../node/optional-parts.ts';
import { nodeOutboundFetch } from '../node/outbound-fetch.ts';
import { dataOptions, openStorage } from '../node/storage.ts';

export type StandaloneRuntime = 'deno' | 'bun';

/** What the runtime passes as `env` to `app.fetch`, so the core can see the client's address. */
export interface ConnectionInfo {
  remoteAddress?: string;
}

export interface Standalone {
  config: Config;
  app: App;
  storage: StorageDriver;
  /** PEM key and certificate when --ssl-key and --ssl-cert are given. */
  tls?: { key: string; cert: string };
}

/** Parses command-line flags with the same option table and rules as `svc start`. */
function parseFlags(runtime: StandaloneRuntime, args: string[]): Record<string, unknown> {
  let parsed;
  try {
    parsed = parseFlagWords(args, flagSpecsOf(OPTIONS));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(`${error.message}. The options are those of \`svc start --help\`.`);
  }
  if (parsed.positionals.length > 0) throw new ConfigError(`unexpected argument "${parsed.positionals[0]}": the ${runtime} entry point only serves; give options as flags.`);
  return parsed.flags;
}

/** Refuses, before anything listens, the options this runtime cannot honour. */
function refuseUnsupported(runtime: StandaloneRuntime, config: Config): void {
  if (config.storage === 'r2') {
    throw new ConfigError(`--storage r2 (SVC_STORAGE=r2) is not available on the ${runtime} runtime: R2 is reached through a Cloudflare Workers binding. Use --storage fs, s3 or memory (R2 through its S3 API with --storage s3).`);
  }
}

/** Resolves the options, refuses what the runtime cannot do, opens the storage and builds the app. */
export async function prepareStandalone(
  runtime: StandaloneRuntime,
  args: string[],
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<Standalone> {
  const config = await loadConfig(parseFlags(runtime, args), env);
  refuseUnsupported(runtime, config);
  for (const warning of unknownEnvironmentWarnings(env)) log(warning);
  const tls = await tlsFilesOf(config);

  const storage = await openStorage(config, { recover: true, env, log, runtime });
  // After the storage, as on Node: a --root that cannot be used stops startup with its one line, and no notice before it.
  for (const notice of [...startupNotices(config, config.host), ...storageNotices(storage)]) log(notice);
  // Loaded with their option, as on Node (the MongoDB driver and the Redis client through the runtime's Node compatibility).
  const optional = await openOptionalParts(config, storage, log);
  const descriptors = descriptorLimit();
  const platform: Platform = {
    runtime,
    storage,
    log,
    ...(descriptors !== undefined && { descriptorLimit: descriptors }),
    clientAddress: (_request, info) => (info as ConnectionInfo | undefined)?.remoteAddress,
    // node:http and node:dns of Deno and Bun run the same guarded fetch as Node (see docs/runtimes.md).
    fetch: nodeOutboundFetch({ allowPrivate: config.allowPrivateFetch }),
    ...optional.platform,
    ...(config.activitypub && { activityPub: () => import('../../src/activitypub/federation.ts') }),
  };
  const created = createApp(config, platform);
  // A clean stop closes the git backend, the database connection and the shared state after the app, as `svc start` does.
  const app: App = { ...created, close: () => created.close().finally(() => optional.close()) };
  await app.init();
  return { config, app, storage, ...(tls && { tls }) };
}

/**
 * With --single-user: where the pod is, and its owner token on the start that created it (Node's `svc token`
 * mints a new one from the same --root, as the data layout is the same on every runtime).
 */
export async function singleUserNoticeOf(app: App, boundUrl: string, config: Config): Promise<string | null> {
  const pod = await app.singleUserPod?.();
  if (!pod) return null;
  const newToken = config.storage === 'memory' ? null : `svc token ${pod.name || '/'} ${dataOptions(config)}`;
  return singleUserNotice(pod, clientBaseUrl(config, boundUrl), newToken, config);
}

/** The URL of a bound address: IPv6 in brackets. */
export function baseUrl(tls: boolean, hostname: string, port: number): string {
  return `${tls ? 'https' : 'http'}://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`;
}

const SHUTDOWN_GRACE_MS = 10_000;

/** What graceful shutdown needs from a runtime: close the sockets, stop accepting and drain, exit. */
export interface ShutdownHooks {
  log(line: string): void;
  closeSockets(): void;
  /** Resolves once in-flight requests have finished. */
  stopServer(): Promise<unknown>;
  closeStorage(): Promise<unknown> | undefined;
  exit(code: number): void;
}

/** The handler for SIGINT and SIGTERM: finish in-flight requests, then exit 0 (or 1 after a grace period). */
export function gracefulShutdown(hooks: ShutdownHooks): (signal: string) => void {
  let stopping = false;
  return (signal) => {
    if (stopping) return;
    stopping = true;
    hooks.log(`${signal} received: finishing in-flight requests, then exiting.`);
    const forced = setTimeout(() => {
      hooks.log('in-flight requests did not finish in time; exiting anyway.');
      hooks.exit(1);
    }, SHUTDOWN_GRACE_MS);
    hooks.closeSockets();
    void hooks
      .stopServer()
      .then(() => hooks.closeStorage())
      .then(() => {
        clearTimeout(forced);
        hooks.exit(0);
      });
  };
}
