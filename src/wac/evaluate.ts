import type { Quad } from 'n3';
import { parseRdf } from '../rdf/convert.ts';
import { isRdfType } from '../rdf/media.ts';
import { essenceOf } from '../storage/media-types.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import type { EffectiveAcl } from './acl-cache.ts';
import type { Authorization } from './acl-document.ts';
import { localBase, storagePathOfLocal } from './local-iri.ts';
import type { AccessMode } from './modes.ts';
import { ACL_AUTHENTICATED_AGENT, FOAF_AGENT, VCARD_HAS_MEMBER } from './vocab.ts';

/** Who is asking, in the comparable form of local-iri.ts. */
export interface Subject {
  /** Localized WebID, null for anonymous. */
  webId: string | null;
  /** Origin header value when it is not the server's own origin (a possibly untrusted web app). */
  foreignOrigin: string | null;
}

/** An IRI in the comparable form of local-iri.ts, for the server a request came to. */
export type Localize = (iri: string) => string;

/** Reads group documents on this server once per evaluation. */
export class GroupReader {
  readonly #storage: StorageDriver;
  readonly #localize: Localize;
  readonly #documents = new Map<string, Promise<Quad[]>>();
  #consulted = false;

  constructor(storage: StorageDriver, localize: Localize) {
    this.#storage = storage;
    this.#localize = localize;
  }

  /** Whether any membership was asked: what was decided then depends on group documents too. */
  get consulted(): boolean {
    return this.#consulted;
  }

  async hasMember(group: string, webId: string): Promise<boolean> {
    this.#consulted = true;
    const local = this.#localize(group);
    const path = storagePathOfLocal(local);
    if (path === null) return false;
    let quads = this.#documents.get(path);
    if (!quads) {
      quads = this.#read(path);
      this.#documents.set(path, quads);
    }
    for (const quad of await quads) {
      if (quad.predicate.value !== VCARD_HAS_MEMBER) continue;
      if (this.#localize(quad.subject.value) !== local) continue;
      if (this.#localize(quad.object.value) === webId) return true;
    }
    return false;
  }

  async #read(path: string): Promise<Quad[]> {
    // A group named in another spelling than on a disk that folds names has no members, like an unreadable one.
    const stored = await this.#storage.get(path).catch((error: unknown) => {
      if (isStorageError(error, 'SpelledOtherwise')) return null;
      throw error;
    });
    if (!stored) return [];
    if (stored.meta.isContainer || !isRdfType(stored.meta.contentType)) {
      await stored.body.cancel();
      return [];
    }
    try {
      return await parseRdf(await new Response(stored.body).text(), essenceOf(stored.meta.contentType!), localBase(path));
    } catch {
      return [];
    }
  }
}

/** Does the authorization name the resource: accessTo when the ACL is its own, default when inherited? */
function governs(authorization: Authorization, acl: EffectiveAcl, path: string, localize: Localize): boolean {
  const targets = acl.inherited ? authorization.default : authorization.accessTo;
  const wanted = acl.inherited ? acl.governedBy : path;
  return targets.some((target) => storagePathOfLocal(localize(target)) === wanted);
}

async function agentMatches(authorization: Authorization, subject: Subject, groups: GroupReader, localize: Localize): Promise<boolean> {
  if (authorization.agentClasses.includes(FOAF_AGENT)) return true;
  if (subject.webId === null) return false;
  if (authorization.agentClasses.includes(ACL_AUTHENTICATED_AGENT)) return true;
  if (authorization.agents.some((agent) => localize(agent) === subject.webId)) return true;
  for (const group of authorization.agentGroups) {
    if (await groups.hasMember(group, subject.webId)) return true;
  }
  return false;
}

/**
 * Does the authorization apply to the subject? An authorization naming only origins grants to requests from
 * those origins. One naming agents grants to them; if it also names origins, a request from a foreign
 * origin must come from one of them. Authorizations without acl:origin do not restrict by origin.
 */
async function applies(authorization: Authorization, subject: Subject, groups: GroupReader, localize: Localize): Promise<boolean> {
  const namesAgents = authorization.agents.length + authorization.agentClasses.length + authorization.agentGroups.length > 0;
  if (!namesAgents) return subject.foreignOrigin !== null && authorization.origins.includes(subject.foreignOrigin);
  if (!(await agentMatches(authorization, subject, groups, localize))) return false;
  return authorization.origins.length === 0 || subject.foreignOrigin === null || authorization.origins.includes(subject.foreignOrigin);
}

/** The modes the effective ACL grants the subject on the path; Write implies Append. */
export async function grantedModes(
  acl: EffectiveAcl | null,
  path: string,
  subject: Subject,
  groups: GroupReader,
  localize: Localize,
): Promise<Set<AccessMode>> {
  const modes = new Set<AccessMode>();
  if (!acl) return modes;
  for (const authorization of acl.authorizations) {
    if (![...authorization.modes].some((mode) => !modes.has(mode))) continue;
    if (!governs(authorization, acl, path, localize)) continue;
    if (!(await applies(authorization, subject, groups, localize))) continue;
    for (const mode of authorization.modes) modes.add(mode);
  }
  if (modes.has('write')) modes.add('append');
  return modes;
}
