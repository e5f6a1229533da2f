/**
 * `--nostr`: a Nostr relay at `--nostr-path`, over the runtime's WebSocket upgrade (the same path the
 * notifications take), with its NIP-11 information document on the same URL over plain HTTP.
 */
import type { FeatureCode } from '../features/feature.ts';
import { ARCHIVE_CONTAINER, storageArchive } from './archive.ts';
import { relayInformation, relayInformationResponse } from './info.ts';
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from './limits.ts';
import { Relay } from './relay.ts';
import type { NostrEvent } from './event.ts';
import { fanOut } from '../cluster/fan-out.ts';
import { HttpProblem } from '../http/problem.ts';
import type { PodQuotas } from '../quota/pod-quotas.ts';
import type { ConnectionState } from './connection.ts';

/** The quota check of the archive: the pod it counts against must have room for an event's record. */
function archiveRoom(quotas: PodQuotas): ((bytes: number) => Promise<void>) | undefined {
  const podRoot = quotas.scope.podOf(ARCHIVE_CONTAINER);
  if (!podRoot) return undefined;
  return async (bytes) => {
    try {
      await quotas.ensureRoom(podRoot, bytes);
    } catch (error) {
      if (error instanceof HttpProblem && error.status === 507) throw new Error("the pod's storage quota is full");
      throw error;
    }
  };
}

export const nostrCode: FeatureCode = {
  create({ config, platform, quotas, now, log }) {
    const path = config.nostrPath;
    const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, eventsPerSecond: config.rateLimit ? config.rateLimitNostr : 0 };
    // With other instances, each keeps every event accepted by any, and its listeners hear them all.
    const peers = platform.sharedState ? fanOut<NostrEvent>(platform.sharedState, 'nostr', (event) => void relay.publish(event, true), log) : null;
    // The runtime's own store of events (Workers: the Durable Object's SQLite), else the resource storage with --nostr-persist.
    const archive = platform.nostrArchive ?? (config.nostrPersist ? storageArchive(platform.storage, log, archiveRoom(quotas)) : undefined);
    const relay: Relay = new Relay({
      maxEvents: config.nostrMaxEvents,
      now,
      log,
      ...(archive && { archive }),
      ...(peers && { announce: (event: NostrEvent) => peers.send(event) }),
    });
    // An instance that cannot hear the others (a Workers isolate) holds no relay sockets: the runtime hands
    // them to the one that does (the Durable Object, which keeps the events in its storage), so here the
    // relay only answers NIP-11.
    const holdsSockets = platform.sharedState?.hearsOthers !== false;
    const information = relayInformation(limits, config.nostrMaxEvents, archive !== undefined || !holdsSockets);
    // The connection code (with nostr-tools' signature check) is loaded by an enabled relay only.
    let connections: Promise<typeof import('./connection.ts')> | undefined;
    const connectionModule = () => (connections ??= import('./connection.ts'));

    return {
      routes(app) {
        app.on(['GET', 'HEAD'], path, (c) => relayInformationResponse(c.req.raw, information));
        app.options(path, () => new Response(null, { status: 204, headers: { Allow: 'GET, HEAD, OPTIONS' } }));
      },
      async upgrade(request) {
        const url = new URL(request.url);
        if (url.pathname !== path) return null;
        const { openRelayConnection } = await connectionModule();
        const deps = { relay, url, limits, now, log };
        return {
          accept: (socket) => openRelayConnection(socket, deps),
          resume: (socket, state) => openRelayConnection(socket, deps, state as ConnectionState),
        };
      },
      async init() {
        if (holdsSockets) await Promise.all([relay.init(), connectionModule(), peers?.init()]);
      },
    };
  },
};
