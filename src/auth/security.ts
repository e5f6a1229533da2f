import type { Config } from '../config/options.ts';
import { loadPodRoots, PodOwners } from '../pods/registry.ts';
import type { Platform } from '../platform.ts';
import { allowEverything, type AccessControl } from '../wac/access-control.ts';
import { AclCache } from '../wac/acl-cache.ts';
import { watchAclWrites } from '../wac/acl-storage.ts';
import { ensureRootAcl } from '../wac/root-acl.ts';
import { WebAccessControl } from '../wac/web-access-control.ts';
import type { CredentialVerifier } from './authenticate.ts';
import { bearerVerifier } from './bearer.ts';
import { loadOrCreateTokenKey } from './token-key.ts';

/** Who is calling and what they may do, plus the startup work both need. */
export interface Security {
  /** The platform with its storage watched for ACL writes (validation and cache invalidation). */
  platform: Platform;
  access: AccessControl;
  /** The server's own bearer tokens; features add other kinds of credentials. */
  bearer: CredentialVerifier;
  tokenKey(): Promise<Uint8Array>;
  /** Root ACL, pod registry and signing key; runs once, however often it is called. */
  init(): Promise<void>;
}

export function createSecurity(config: Config, base: Platform): Security {
  const now = base.now ?? Date.now;
  // The cache reads through the plain driver; writers get the watched one, which invalidates it.
  const cache = config.public ? null : new AclCache(base.storage, (line) => base.log(line), now);
  const platform: Platform = cache ? { ...base, storage: watchAclWrites(base.storage, (aclPath) => cache.invalidate(aclPath)) } : base;
  const storage = platform.storage;
  // Pods are remembered with the driver the handlers use, so their owners are looked up through it too.
  const owners = new PodOwners(storage);
  const wac = cache ? new WebAccessControl(base.storage, cache, (path) => owners.ownerOf(path)) : null;
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
  return { platform, access: wac ?? allowEverything, bearer: bearerVerifier(tokenKey, now), tokenKey, init };
}
