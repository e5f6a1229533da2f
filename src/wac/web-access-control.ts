import { HttpProblem } from '../http/problem.ts';
import { isAclPath, subjectOfAcl } from '../ldp/auxiliary.ts';
import { parentOf } from '../storage/paths.ts';
import { SpelledOtherwiseError, type StorageDriver } from '../storage/types.ts';
import type { AclCache } from './acl-cache.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import { stringBytes } from '../storage/cache-budget.ts';
import type { AccessControl, AllowedModes, Caller } from './access-control.ts';
import type { PodHosts } from '../pods/subdomains.ts';
import { GroupReader, grantedModes, type Localize, type Subject } from './evaluate.ts';
import { localizeIri } from './local-iri.ts';
import { ALL_MODES, type AccessMode, type AccessRequirement } from './modes.ts';
import { withinScopes } from './scopes.ts';

/** Who owns the pods: the owner of a path's pod (URL path and fragment of the WebID, `/alice/#me`; null outside pods), and a number that moves when that may have changed (a pod made). */
export interface PodOwnership {
  ownerOf(path: string): Promise<string | null>;
  version(): number;
}

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
  if (requirements.length === 1) return requirements;
  const aclParents = new Set(requirements.filter((r) => isAclPath(r.path)).map((r) => parentOf(r.path)));
  return aclParents.size === 0 ? requirements : requirements.filter((r) => isAclPath(r.path) || !aclParents.has(r.path));
}

/** The modes decided on a path for a caller, and what they were derived from. */
interface Decision {
  modes: ReadonlySet<AccessMode>;
  /** The same in ALL_MODES order, as WAC-Allow lists them. */
  listed: readonly AccessMode[];
  /** The ACL cache's generation and the pods' ownership version when the decision was begun. */
  generation: number;
  owners: number;
  /** When the oldest ACL document it was derived from was read; null: kept for its request only. */
  loadedAt: number | null;
}

/** WAC-Allow's lists from the caller's decision and the public's; a token's scopes narrow the caller's. */
function allowedFrom(caller: Caller, path: string, granted: Decision, anyone: Decision): AllowedModes {
  if (!caller.scopes) return { user: granted.listed, public: anyone.listed };
  const user = new Set([...withinScopes(caller, path, granted.modes), ...anyone.modes]);
  return { user: ALL_MODES.filter((m) => user.has(m)), public: anyone.listed };
}

/**
 * What the decisions on a path keep alive (measured with `npm run bench:cache-weights`): a path's entry (the
 * cache's slot and entry, the PathDecisions and its first map), each further map, and each decision (the
 * object, its set and array of modes, its time, the map's slot); their keys' strings are counted besides.
 */
const PATH_BYTES = 340;
const MAP_BYTES = 200;
const DECISION_BYTES = 400;
/** The default bound of the decisions, in bytes (the server passes its share of --cache-size). */
const DEFAULT_DECISION_BYTES = 1024 * 1024;

/** A path's decisions with none yet. */
function noDecisions(path: string): PathDecisions {
  return { byServerOrigin: new Map(), bytes: PATH_BYTES + stringBytes(path) };
}

/** Puts a decision into a path's, counting the maps made for it and itself unless it replaces one. */
function putDecision(onPath: PathDecisions, serverOrigin: string, foreignOrigin: string, webId: string, decision: Decision): void {
  let byForeignOrigin = onPath.byServerOrigin.get(serverOrigin);
  if (!byForeignOrigin) {
    onPath.byServerOrigin.set(serverOrigin, (byForeignOrigin = new Map()));
    onPath.bytes += MAP_BYTES + stringBytes(serverOrigin);
  }
  let byWebId = byForeignOrigin.get(foreignOrigin);
  if (!byWebId) {
    byForeignOrigin.set(foreignOrigin, (byWebId = new Map()));
    onPath.bytes += MAP_BYTES + stringBytes(foreignOrigin);
  }
  if (!byWebId.has(webId)) onPath.bytes += DECISION_BYTES + stringBytes(webId);
  byWebId.set(webId, decision);
}

/** A foreign Origin header (one other than the origin the request came to), '' for none. */
function foreignOriginOf(caller: Caller): string {
  return caller.origin !== null && caller.origin !== caller.serverOrigin ? caller.origin : '';
}

/**
 * A decision's key within its request (see `#remembered`): the path, the origin the request came to, a foreign
 * Origin and the WebID. Origins and paths hold no newline (a path with a control character is refused), so
 * the WebID, which a token may give with any character in it, goes last.
 */
function decisionKey(caller: Caller, path: string, anonymous: boolean): string {
  return `${caller.serverOrigin ?? ''}\n${foreignOriginOf(caller)}\n${path}\n${anonymous ? '' : (caller.webId ?? '')}`;
}

/**
 * The decisions shared across requests on one path, by what else they depend on: the origin the request came
 * to (which IRIs count as this server's), a foreign Origin header (acl:origin, '' for none) and the caller's
 * WebID ('' for the public). Nested maps of strings the request already holds: a lookup builds no key.
 */
interface PathDecisions {
  byServerOrigin: Map<string, Map<string, Map<string, Decision>>>;
  /** Its weight in the bound: PATH_BYTES and the path, MAP_BYTES and the key per map, DECISION_BYTES and the WebID per decision. */
  bytes: number;
}

/** What a request's evaluations share: the comparable form of its IRIs, its subject, the group documents it read. */
interface Evaluation {
  localize: Localize;
  subject: Subject;
  groups: GroupReader;
}

type RememberedModes = Map<string, { generation: number; decision: Promise<Decision> }>;

/**
 * Web Access Control: effective ACL from the nearest ACL document (cached), authorizations by agent,
 * class, group and origin, and Control alone for ACL documents. No applicable ACL means deny.
 */
export class WebAccessControl implements AccessControl {
  readonly #cache: AclCache;
  readonly #storage: StorageDriver;
  readonly #owners: PodOwnership;
  readonly #hosts: PodHosts | null;
  /**
   * Decisions across requests, so a warm check walks no ACL at all. One is used while the ACL cache's generation
   * (moved by every ACL write through any instance) and the pods' ownership are as when it was begun, and the
   * ACL documents it came from are younger than ACL_MAX_AGE_MS (changes made on disk). A decision that read a
   * group document is not kept: groups are ordinary resources, written without telling anyone.
   */
  readonly #decisions: BoundedCache<string, PathDecisions>;
  /** What one path's decisions may weigh. */
  readonly #maxPathBytes: number;
  /**
   * Modes already worked out for a request (its Caller object), by agent and path, where no shared decision
   * is at hand: a GET asks for the same ones up to three times (the check, then WAC-Allow for the user and the
   * public). A write to any ACL in between makes them stale. Kept on the Caller under this instance's key (a
   * WeakMap entry per request would weigh on every garbage collection).
   */
  readonly #perRequest = Symbol('svc.modes');

  /** `cache` reads through `storage`; whoever writes ACL documents must invalidate it (see acl-storage.ts). */
  /** `hosts`: in subdomain mode, so that IRIs on every pod's host count as this server's. */
  constructor(storage: StorageDriver, cache: AclCache, owners: PodOwnership, hosts: PodHosts | null = null, maxDecisionBytes = DEFAULT_DECISION_BYTES) {
    this.#storage = storage;
    this.#cache = cache;
    this.#owners = owners;
    this.#hosts = hosts;
    this.#decisions = new BoundedCache(maxDecisionBytes, (decisions) => decisions.bytes);
    this.#maxPathBytes = maxDecisionBytes / 4;
  }

  require(caller: Caller, requirements: readonly AccessRequirement[]): void | Promise<void> {
    if (this.#cache.shared) return this.#cache.currentGeneration().then(() => this.#require(caller, requirements));
    return this.#require(caller, requirements);
  }

  /** At once when every decision is held and needs no scope check (a warm request), else the same checks awaited. */
  #require(caller: Caller, requirements: readonly AccessRequirement[]): void | Promise<void> {
    let evaluation: Evaluation | undefined;
    const evaluate = () => (evaluation ??= this.#evaluation(caller));
    const checked = withoutAuxiliaryParents(requirements);
    for (let index = 0; index < checked.length; index++) {
      const requirement = checked[index]!;
      const granted = this.#decision(caller, requirement.path, false, evaluate);
      // From here on awaited, starting with the decision in hand: a promise dropped here would reject unhandled.
      if (granted instanceof Promise || caller.scopes) return this.#requireAwaited(caller, checked.slice(index), granted, evaluate);
      if (!requirement.anyOf.some((mode) => granted.modes.has(mode))) throw denied(caller, requirement);
    }
  }

  /** The requirements checked in turn, the first one's decision given (made or being made). */
  async #requireAwaited(caller: Caller, requirements: readonly AccessRequirement[], first: Decision | Promise<Decision>, evaluate: () => Evaluation): Promise<void> {
    for (let index = 0; index < requirements.length; index++) {
      const requirement = requirements[index]!;
      const granted = (await (index === 0 ? first : this.#decision(caller, requirement.path, false, evaluate))).modes;
      if (!requirement.anyOf.some((mode) => granted.has(mode))) throw denied(caller, requirement);
      if (caller.scopes && !requirement.anyOf.some((mode) => withinScopes(caller, requirement.path, granted).has(mode))) {
        // A token limited by its scopes still leaves its app what anyone may do.
        const anyone = (await this.#decision(caller, requirement.path, true, evaluate)).modes;
        if (!requirement.anyOf.some((mode) => anyone.has(mode))) throw outsideScopes(caller, requirement);
      }
    }
  }

  allowedModes(caller: Caller, path: string): AllowedModes | Promise<AllowedModes> {
    if (this.#cache.shared) return this.#cache.currentGeneration().then(() => this.#allowedModes(caller, path));
    return this.#allowedModes(caller, path);
  }

  /** The caller's decision, then the public's (each at once when held). */
  #allowedModes(caller: Caller, path: string): AllowedModes | Promise<AllowedModes> {
    let evaluation: Evaluation | undefined;
    const evaluate = () => (evaluation ??= this.#evaluation(caller));
    const granted = this.#decision(caller, path, false, evaluate);
    if (granted instanceof Promise) return granted.then((decided) => this.#withPublic(caller, path, decided, evaluate));
    return this.#withPublic(caller, path, granted, evaluate);
  }

  #withPublic(caller: Caller, path: string, granted: Decision, evaluate: () => Evaluation): AllowedModes | Promise<AllowedModes> {
    const anyone = caller.webId === null ? granted : this.#decision(caller, path, true, evaluate);
    if (anyone instanceof Promise) return anyone.then((decided) => allowedFrom(caller, path, granted, decided));
    return allowedFrom(caller, path, granted, anyone);
  }

  version(): Promise<number> {
    return this.#cache.currentGeneration();
  }

  #evaluation(caller: Caller): Evaluation {
    const localize = localizerFor(caller, this.#hosts);
    return { localize, subject: subjectOf(caller, localize), groups: new GroupReader(this.#storage, localize) };
  }

  /** The shared decision when one holds (no promise made), else the request's own. */
  #decision(caller: Caller, path: string, anonymous: boolean, evaluate: () => Evaluation): Decision | Promise<Decision> {
    const decided = this.#decisions.get(path)?.byServerOrigin.get(caller.serverOrigin ?? '')?.get(foreignOriginOf(caller))?.get(anonymous ? '' : (caller.webId ?? ''));
    if (
      decided !== undefined &&
      decided.generation === this.#cache.generation &&
      decided.owners === this.#owners.version() &&
      this.#cache.fresh(decided.loadedAt!)
    ) {
      return decided;
    }
    return this.#remembered(caller, path, anonymous, evaluate);
  }

  #remembered(caller: Caller, path: string, anonymous: boolean, evaluate: () => Evaluation): Promise<Decision> {
    const key = decisionKey(caller, path, anonymous);
    const held = caller as Caller & { [key: symbol]: RememberedModes | undefined };
    let known = held[this.#perRequest];
    // Not enumerable: a copy of the caller (`{ ...caller }`, as notifications make to check again) starts afresh.
    if (!known) Object.defineProperty(held, this.#perRequest, { value: (known = new Map()) });
    const generation = this.#cache.generation;
    const entry = known.get(key);
    if (entry && entry.generation === generation) return entry.decision;
    const owners = this.#owners.version();
    const { localize, subject: callerSubject, groups } = evaluate();
    const subject = anonymous ? { ...callerSubject, webId: null } : callerSubject;
    const decision = this.#modes(path, subject, groups, localize).then(({ modes, loadedAt }) => {
      const made: Decision = { modes, listed: ALL_MODES.filter((m) => modes.has(m)), generation, owners, loadedAt };
      if (loadedAt !== null && !groups.consulted) this.#share(caller, path, anonymous, made);
      return made;
    });
    known.set(key, { generation, decision });
    return decision;
  }

  #share(caller: Caller, path: string, anonymous: boolean, decision: Decision): void {
    const serverOrigin = caller.serverOrigin ?? '';
    const foreignOrigin = foreignOriginOf(caller);
    const webId = anonymous ? '' : (caller.webId ?? '');
    let onPath = this.#decisions.peek(path) ?? noDecisions(path);
    putDecision(onPath, serverOrigin, foreignOrigin, webId, decision);
    // A path many callers ask about starts afresh at a quarter of the bound rather than pushing the others out.
    if (onPath.bytes > this.#maxPathBytes) putDecision((onPath = noDecisions(path)), serverOrigin, foreignOrigin, webId, decision);
    // Set again, so the bound counts its new weight.
    this.#decisions.set(path, onPath);
  }

  /**
   * Modes on a path; on an ACL document every mode comes from Control over the resource it governs. A pod's
   * owner always has Control in the pod, so no ACL they write can lock them out of fixing it. With them, when
   * the oldest ACL document they came from was read (null: not to be kept).
   */
  async #modes(path: string, subject: Subject, groups: GroupReader, localize: Localize): Promise<{ modes: Set<AccessMode>; loadedAt: number | null }> {
    const governed = isAclPath(path) ? subjectOfAcl(path) : path;
    let acl;
    try {
      acl = await this.#cache.effectiveAcl(governed);
    } catch (error) {
      // A name spelled otherwise than on a disk that folds names: said (400) only to whoever may list the
      // directory holding it; to others the path grants nothing, as a name they cannot see.
      if (!(error instanceof SpelledOtherwiseError)) throw error;
      // The directory is an ancestor, or the container itself when its own ACL document is spelled otherwise.
      if (error.directory !== governed && (await this.#modes(error.directory, subject, groups, localize)).modes.has('read')) throw error;
      return { modes: new Set(), loadedAt: null };
    }
    const modes = await grantedModes(acl, governed, subject, groups, localize);
    if (subject.webId !== null && !modes.has('control') && (await this.#owners.ownerOf(governed)) === subject.webId) modes.add('control');
    const loadedAt = acl?.loadedAt ?? null;
    if (isAclPath(path)) return { modes: modes.has('control') ? new Set(ALL_MODES) : new Set(), loadedAt };
    return { modes, loadedAt };
  }
}
