import type { Config } from '../config/options.ts';
import { cacheBudgets } from '../storage/cache-budget.ts';
import { loadPodRoots, PodOwners } from '../pods/registry.ts';
import { podHostsOf } from '../pods/subdomains.ts';
import type { Platform } from '../platform.ts';
import { allowEverything, type AccessControl } from '../wac/access-control.ts';
import { AclCache } from '../wac/acl-cache.ts';
import { watchAclWrites } from '../wac/acl-storage.ts';
import { ensureRootAcl } from '../wac/root-acl.ts';
import { WebAccessControl } from '../wac/web-access-control.ts';
import type { CredentialVerifier } from './authenticate.ts';
import { bearerVerifier } from './bearer.ts';
import type { IssuedTokens } from './issued-tokens.ts';
import { nostrVerifier } from './nostr/verifier.ts';
import { SharedReplayCache } from './solid-oidc/shared-replay-cache.ts';
import { boundTokenAsBearer, dpopVerifier } from './solid-oidc/verifier.ts';
import { loadOrCreateTokenKey } from './token-key.ts';
import { webIdTls, type WebIdTls } from './webid-tls/verifier.ts';

/** Who is calling and what they may do, plus the startup work both need. */
export interface Security {
  /** The platform with its storage watched for ACL writes (validation and cache invalidation). */
  platform: Platform;
  access: AccessControl;
  /**
   * The credentials every configuration accepts, in the order they are asked: the server's own bearer tokens,
   * DPoP-bound tokens sent as Bearer (refused), Solid-OIDC DPoP tokens from any issuer, NIP-98 Nostr events. Features
   * add other kinds.
   */
  credentials: readonly CredentialVerifier[];
  /** With --webid-tls: TLS client certificates, asked when a request has no `Authorization` header. */
  webIdTls: WebIdTls | null;
  tokenKey(): Promise<Uint8Array>;
  /** Root ACL, pod registry and signing key; runs once, however often it is called. */
  init(): Promise<void>;
}

/**
 * `local` answers a request with the server's own handlers: the DPoP verifier reads WebID profiles and
 * issuer documents on the server's own origin through it. `issuedTokens` ends the server's own DPoP tokens
 * early, once a feature fills it.
 */
export function createSecurity(config: Config, base: Platform, local: (request: Request) => Promise<Response>, issuedTokens?: IssuedTokens): Security {
  const now = base.now ?? Date.now;
  // The cache reads through the plain driver; writers get the watched one, which invalidates it.
  const cache = config.public ? null : new AclCache(base.storage, (line) => base.log(line), now, base.sharedState, cacheBudgets(config.cacheSize).aclDocuments);
  const platform: Platform = cache ? { ...base, storage: watchAclWrites(base.storage, (aclPath, written) => cache.announceChange(aclPath, written)) } : base;
  const storage = platform.storage;
  // Pods are remembered with the driver the handlers use, so their owners are looked up through it too.
  const hosts = podHostsOf(config);
  const owners = new PodOwners(storage, hosts);
  const wac = cache ? new WebAccessControl(base.storage, cache, owners, hosts, cacheBudgets(config.cacheSize).wacDecisions) : null;
  let key: Promise<Uint8Array> | null = null;
  const tokenKey = () => (key ??= loadOrCreateTokenKey(storage));
  let started: Promise<void> | null = null;
  const init = () =>
    (started ??= (async () => {
      await ensureRootAcl(storage, (line) => base.log(line));
      await loadPodRoots(storage);
      await tokenKey();
    })().catch((error: unknown) => {
      started = null;
      throw error;
    }));
  // With other instances, a proof used on one must be refused by all: they remember proofs in the shared state.
  const shared = base.sharedState;
  const credentials = [
    // The server's own tokens first: they are most bearer requests, and a known one is a cache hit.
    bearerVerifier(tokenKey, now, hosts, config.singleUserSecret ?? null),
    boundTokenAsBearer,
    dpopVerifier({ platform: base, now, local, ...(issuedTokens && { issuedTokens }), ...(shared && { replays: new SharedReplayCache(shared, 'dpop') }) }),
    nostrVerifier({
      platform: base,
      now,
      local,
      maxBodyBytes: config.maxBodySize,
      ...(config.nostrDidResolver && { didResolver: config.nostrDidResolver }),
      ...(shared && { replays: new SharedReplayCache(shared, 'nip98') }),
    }),
  ];
  const certificates = config.webidTls ? webIdTls({ config, platform: base, now, local }) : null;
  return { platform, access: wac ?? allowEverything, credentials, webIdTls: certificates, tokenKey, init };
}
