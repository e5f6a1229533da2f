import type { SignatureVerifierFactory } from './auth/solid-oidc/signature.ts';
import type { SharedState } from './cluster/shared-state.ts';
import type { DocumentStore } from './docdb/store.ts';
import type { GitBackend } from './git/backend.ts';
import type { EventArchive } from './nostr/relay.ts';
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
  /** Files and sockets the process may hold open (the soft RLIMIT_NOFILE), when the runtime can tell: WebSockets take at most half. */
  descriptorLimit?: number;
  /** Address of the peer that sent a request; `env` is what the runtime passed to `fetch` with it. */
  clientAddress?(request: Request, env: unknown): string | undefined;
  /**
   * The TLS client certificate (DER) that came with a request, null when none did (`--webid-tls`). Absent:
   * the runtime cannot see client certificates, and `--webid-tls` is refused at startup.
   */
  peerCertificate?(request: Request, env: unknown): Uint8Array | null;
  /**
   * The one way the server fetches from other servers (issuer discovery, JWKS, WebID profiles, Client ID
   * Documents): the runtime refuses loopback, private, link-local and multicast targets (after DNS and on
   * every redirect) unless `--allow-private-fetch`, and limits size, redirects and time. Absent: features
   * that need it are refused at startup.
   */
  fetch?: OutboundFetch;
  /**
   * Signature checks for the keys of DPoP proofs, one per DPoP request (Node: `node:crypto`'s synchronous
   * verify, cheaper than WebCrypto's). It must accept and refuse exactly what WebCrypto does. Absent: WebCrypto.
   */
  signatureVerifier?: SignatureVerifierFactory;
  /**
   * Git's smart HTTP backend on the files of the storage (the Node runtime with the fs driver spawns
   * `git http-backend`). Absent: `--git` is refused at startup.
   */
  git?: GitBackend;
  /** The database behind `--docdb` (the Node runtime connects to MongoDB). Absent: `--docdb` is refused at startup. */
  documentStore?: DocumentStore;
  /**
   * A file of the data browser served with `--databrowser` (mashlib's `dist/`: `mashlib.min.js`,
   * `mash.css`, ...) by its name, or null when there is no such file. Absent: local mode is refused at startup.
   */
  databrowserAsset?(name: string): Promise<Uint8Array | null>;
  /**
   * Calls `changed` with the storage paths of files changed on disk, by svc or anything else (git, an
   * editor), having dropped what the driver cached of them. Absent: `--live-reload` sees writes over HTTP only.
   */
  watchStorage?(changed: (paths: readonly string[]) => void): void;
  /**
   * State shared with the other instances serving the same storage (`--redis-url`). Absent: one instance,
   * and every lock, counter, cache and subscriber list stays in this process.
   */
  sharedState?: SharedState;
  /**
   * Loads the ActivityPub federation (`src/activitypub/federation.ts`, on fedify) for `--activitypub`. A
   * capability because fedify needs help from the runtime's build (the Workers bundle replaces its Deno
   * shim, see wrangler.toml): each runtime imports it. Absent: `--activitypub` is refused at startup.
   */
  activityPub?(): Promise<typeof import('./activitypub/federation.ts')>;
  /**
   * Where queued work (ActivityPub deliveries and their retries, the WebSockets' idle sweep) runs when not in a loop of the app's own:
   * the runtime calls `App.runDue([work])` once `inMs` have passed (Workers: the shared-state Durable Object's
   * alarm, as an isolate's timers end with its request), for the `work` that asked only. Absent: the app
   * works its queues itself, with timers (Node, Deno, Bun).
   */
  scheduleDue?(inMs: number, work: string): void;
  /**
   * Where the Nostr relay keeps its events when the runtime has a store of its own for them (Workers: the
   * shared-state Durable Object's SQLite, which outlives the object's eviction). Absent: memory, or the
   * resource storage with `--nostr-persist`.
   */
  nostrArchive?: EventArchive;
}

/** `fetch` with the outbound guard; it rejects with an `OutboundFetchRefused` for a refused target or limit. */
export type OutboundFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;
