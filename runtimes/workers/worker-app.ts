/**
 * The app of a Worker isolate or of the shared-state Durable Object: configured from the Worker's string
 * vars (`SVC_*`, as in the option table), storing resources in the R2 bucket bound as `PODS` (or in isolate
 * memory when no bucket is bound), and sharing state through `sharedState` when there is one.
 */
import { createApp, type App } from '../../src/app.ts';
import type { SharedState } from '../../src/cluster/shared-state.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError, startupNotices } from '../../src/config/resolve.ts';
import type { Platform } from '../../src/platform.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { R2Driver, type R2BucketLike } from '../../storage-drivers/r2.ts';
import { workersOutboundFetch } from './outbound-fetch.ts';
import { BUCKET_BINDING, workerConfig, type WorkerEnv } from './config.ts';

function openStorage(config: Config, env: WorkerEnv): StorageDriver {
  return config.storage === 'r2' ? new R2Driver(env[BUCKET_BINDING] as R2BucketLike) : new MemoryDriver();
}

export function log(line: string): void {
  console.log(line);
}

/**
 * The client's address as Cloudflare's edge states it on every request (`CF-Connecting-IP`, which a client
 * cannot set): the isolates' per-address rate limits and the Durable Object's per-address socket budget count by it.
 */
const connectingAddress = (request: Request): string | undefined => request.headers.get('cf-connecting-ip') ?? undefined;

/**
 * Builds the app, or returns the configuration error (reported on every request by the caller). `role`: the
 * isolates tell the startup notices; the Durable Object, reading the same vars, does not repeat them. `extras`:
 * what the isolates or the Durable Object add to the platform (how queued work reaches the object's alarm,
 * the relay's store of events in the object).
 */
export function buildWorkerApp(env: WorkerEnv, sharedState: SharedState | undefined, role: 'isolate' | 'object', extras: Pick<Platform, 'scheduleDue' | 'nostrArchive'> = {}): App | ConfigError {
  try {
    const config = workerConfig(env);
    if (role === 'isolate') for (const notice of startupNotices(config)) log(notice);
    const platform: Platform = {
      runtime: 'workers',
      storage: openStorage(config, env),
      log,
      now: () => Date.now(),
      fetch: workersOutboundFetch(config.allowPrivateFetch),
      clientAddress: connectingAddress,
      ...(sharedState && { sharedState }),
      ...extras,
      // fedify is evaluated on the first call only (the bundle holds it, see wrangler.toml).
      activityPub: () => import('../../src/activitypub/federation.ts'),
    };
    return createApp(config, platform);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log(`svc: ${error.message}`);
    return error;
  }
}
