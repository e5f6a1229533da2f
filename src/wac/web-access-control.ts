import { HttpProblem } from '../http/problem.ts';
import { isAclPath, subjectOfAcl } from '../ldp/auxiliary.ts';
import { parentOf } from '../storage/paths.ts';
import { SpelledOtherwiseError, type StorageDriver } from '../storage/types.ts';
import type { AclCache } from './acl-cache.ts';
import type { AccessControl, Caller } from './access-control.ts';
import type { PodHosts } from '../pods/subdomains.ts';
import { GroupReader, grantedModes, type Localize, type Subject } from './evaluate.ts';
import { localizeIri } from './local-iri.ts';
import { ALL_MODES, type AccessMode, type AccessRequirement } from './modes.ts';
import { withinScopes } from './scopes.ts';

/** URL path and fragment of the WebID owning the pod that holds a path (`/alice/#me`), null outside pods. */
export type PodOwnerLookup = (path: string) => Promise<string | null>;

/** IRIs in comparable form for a caller's request: the origin it came to, and in subdomain mode every host of the server. */
function localizerFor(caller: Caller, hosts: PodHosts | null): Localize {
  return (iri) => localizeIri(iri, caller.serverOrigin, hosts);
}

function subjectOf(caller: Caller, localize: Localize): Subject {
  return {
    webId: caller.webId === null ? null : localize(caller.webId),
    foreignOrigin: caller.origin !== null && caller.origin !== caller.serverOrigin ? caller.origin : null,
  };
}

/**
 * `WWW-Authenticate` for a 401: both schemes a client may use, and on the scheme whose credentials failed,
 * the error code and why (`invalid_token`, or `invalid_dpop_proof` for a DPoP proof: RFC 9449 §7.1).
 */
export function authenticateChallenge(caller: Caller): string {
  const realm = `realm="${caller.serverOrigin ?? 'svc'}"`;
  const failed = caller.credentialError ? (caller.credentialChallenge ?? { scheme: 'bearer', code: 'invalid_token' }) : null;
  const error = (scheme: string) =>
    failed?.scheme === scheme ? `, error="${failed.code}", error_description="${caller.credentialError!.replace(/["\\]/g, '')}"` : '';
  // Nostr is named only when its credentials failed: clients that do not sign with a Nostr key never see it.
  const nostr = failed?.scheme === 'nostr' ? `, Nostr ${realm}${error('nostr')}` : '';
  return `Bearer ${realm}${error('bearer')}, DPoP ${realm}${error('dpop')}${nostr}`;
}

function denied(caller: Caller, requirement: AccessRequirement): HttpProblem {
  if (caller.webId === null) {
    const detail = caller.credentialError
      ? `The credentials sent were not accepted (${caller.credentialError}), and anonymous access is not allowed here.`
      : 'Authentication is required to access this resource.';
    return new HttpProblem(401, detail, { type: 'unauthenticated', headers: { 'WWW-Authenticate': authenticateChallenge(caller) } });
  }
  const modes = requirement.anyOf.join(' or ');
  return new HttpProblem(403, `${caller.webId} does not have ${modes} access here.`, { type: 'forbidden' });
}

/** RFC 6750 §3.1: the WebID may, but the token's scopes do not let the app do it. */
function outsideScopes(caller: Caller, requirement: AccessRequirement): HttpProblem {
  const needed = requirement.anyOf.includes('read') ? 'read' : 'write';
  const detail = `The token's scopes (${caller.scopes!.join(' ') || 'none'}) do not allow ${requirement.anyOf.join(' or ')} access here; it needs the scope "${needed}".`;
  const challenge = `Bearer realm="${caller.serverOrigin ?? 'svc'}", error="insufficient_scope", scope="${needed}"`;
  return new HttpProblem(403, detail, { type: 'insufficient-scope', headers: { 'WWW-Authenticate': challenge } });
}

/**
 * An ACL document is auxiliary: creating or deleting one needs Control on its subject only, so the
 * requirement handlers derive for its container (as for any member) does not apply.
 */
function withoutAuxiliaryParents(requirements: readonly AccessRequirement[]): readonly AccessRequirement[] {
  const aclParents = new Set(requirements.filter((r) => isAclPath(r.path)).map((r) => parentOf(r.path)));
  return aclParents.size === 0 ? requirements : requirements.filter((r) => isAclPath(r.path) || !aclParents.has(r.path));
}

type RememberedModes = Map<string, { generation: number; modes: Promise<Set<AccessMode>> }>;

/**
 * Web Access Control: effective ACL from the nearest ACL document (cached), authorizations by agent,
 * class, group and origin, and Control alone for ACL documents. No applicable ACL means deny.
 */
export class WebAccessControl implements AccessControl {
  readonly #cache: AclCache;
  readonly #storage: StorageDriver;
  readonly #podOwnerOf: PodOwnerLookup;
  readonly #hosts: PodHosts | null;
  /**
   * Modes already worked out for a request (its Caller object), by agent and path: a GET asks for the same
   * ones up to three times (the check, then WAC-Allow for the user and the public). A write to any ACL in
   * between makes them stale. Kept on the Caller under this instance's key (a WeakMap entry per request would
   * weigh on every garbage collection).
   */
  readonly #perRequest = Symbol('svc.modes');

  /** `cache` reads through `storage`; whoever writes ACL documents must invalidate it (see acl-storage.ts). */
  /** `hosts`: in subdomain mode, so that IRIs on every pod's host count as this server's. */
  constructor(storage: StorageDriver, cache: AclCache, podOwnerOf: PodOwnerLookup, hosts: PodHosts | null = null) {
    this.#storage = storage;
    this.#cache = cache;
    this.#podOwnerOf = podOwnerOf;
    this.#hosts = hosts;
  }

  async require(caller: Caller, requirements: readonly AccessRequirement[]): Promise<void> {
    const localize = localizerFor(caller, this.#hosts);
    const subject = subjectOf(caller, localize);
    const groups = new GroupReader(this.#storage, localize);
    for (const requirement of withoutAuxiliaryParents(requirements)) {
      const granted = await this.#remembered(caller, requirement.path, subject, groups, localize);
      if (!requirement.anyOf.some((mode) => granted.has(mode))) throw denied(caller, requirement);
      if (caller.scopes && !requirement.anyOf.some((mode) => withinScopes(caller, requirement.path, granted).has(mode))) {
        // A token limited by its scopes still leaves its app what anyone may do.
        const anyone = await this.#remembered(caller, requirement.path, { ...subject, webId: null }, groups, localize);
        if (!requirement.anyOf.some((mode) => anyone.has(mode))) throw outsideScopes(caller, requirement);
      }
    }
  }

  async allowedModes(caller: Caller, path: string): Promise<{ user: readonly AccessMode[]; public: readonly AccessMode[] }> {
    const localize = localizerFor(caller, this.#hosts);
    const subject = subjectOf(caller, localize);
    const groups = new GroupReader(this.#storage, localize);
    const granted = await this.#remembered(caller, path, subject, groups, localize);
    const anyone = subject.webId === null ? granted : await this.#remembered(caller, path, { ...subject, webId: null }, groups, localize);
    const user = caller.scopes ? new Set([...withinScopes(caller, path, granted), ...anyone]) : granted;
    return { user: ALL_MODES.filter((m) => user.has(m)), public: ALL_MODES.filter((m) => anyone.has(m)) };
  }

  version(): Promise<number> {
    return this.#cache.currentGeneration();
  }

  #remembered(caller: Caller, path: string, subject: Subject, groups: GroupReader, localize: Localize): Promise<Set<AccessMode>> {
    const held = caller as Caller & { [key: symbol]: RememberedModes | undefined };
    let known = held[this.#perRequest];
    // Not enumerable: a copy of the caller (`{ ...caller }`, as notifications make to check again) starts afresh.
    if (!known) Object.defineProperty(held, this.#perRequest, { value: (known = new Map()) });
    const key = `${subject.webId ?? ''}\n${path}`;
    const generation = this.#cache.generation;
    const entry = known.get(key);
    if (entry && entry.generation === generation) return entry.modes;
    const modes = this.#modes(path, subject, groups, localize);
    known.set(key, { generation, modes });
    return modes;
  }

  /**
   * Modes on a path; on an ACL document every mode comes from Control over the resource it governs. A pod's
   * owner always has Control in the pod, so no ACL they write can lock them out of fixing it.
   */
  async #modes(path: string, subject: Subject, groups: GroupReader, localize: Localize): Promise<Set<AccessMode>> {
    const governed = isAclPath(path) ? subjectOfAcl(path) : path;
    let acl;
    try {
      acl = await this.#cache.effectiveAcl(governed);
    } catch (error) {
      // A name spelled otherwise than on a disk that folds names: said (400) only to whoever may list the
      // directory holding it; to others the path grants nothing, as a name they cannot see.
      if (!(error instanceof SpelledOtherwiseError)) throw error;
      // The directory is an ancestor, or the container itself when its own ACL document is spelled otherwise.
      if (error.directory !== governed && (await this.#modes(error.directory, subject, groups, localize)).has('read')) throw error;
      return new Set();
    }
    const modes = await grantedModes(acl, governed, subject, groups, localize);
    if (subject.webId !== null && !modes.has('control') && (await this.#podOwnerOf(governed)) === subject.webId) modes.add('control');
    if (isAclPath(path)) return modes.has('control') ? new Set(ALL_MODES) : new Set();
    return modes;
  }
}
