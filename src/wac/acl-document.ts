import type { Quad } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { parseRdf } from '../rdf/convert.ts';
import { Pacer } from '../rdf/cooperative.ts';
import { JSON_LD, TURTLE } from '../rdf/media.ts';
import { essenceOf } from '../storage/media-types.ts';
import { LOCAL_ORIGIN, localBase, localizeIri } from './local-iri.ts';
import type { AccessMode } from './modes.ts';
import { ACL, ACL_AUTHORIZATION, RDF_TYPE } from './vocab.ts';

/** One `acl:Authorization`, its IRIs localized (see local-iri.ts) as far as parsing allows. */
export interface Authorization {
  accessTo: string[];
  default: string[];
  modes: Set<AccessMode>;
  agents: string[];
  agentClasses: string[];
  agentGroups: string[];
  origins: string[];
}

const MODE_BY_IRI: Record<string, AccessMode> = {
  [ACL + 'Read']: 'read',
  [ACL + 'Write']: 'write',
  [ACL + 'Append']: 'append',
  [ACL + 'Control']: 'control',
};

const LIST_BY_PREDICATE: Record<string, Exclude<keyof Authorization, 'modes'>> = {
  [ACL + 'accessTo']: 'accessTo',
  [ACL + 'default']: 'default',
  [ACL + 'agent']: 'agents',
  [ACL + 'agentClass']: 'agentClasses',
  [ACL + 'agentGroup']: 'agentGroups',
  [ACL + 'origin']: 'origins',
};

/** Authorizations read between pauses: each takes a few microseconds per IRI. */
const AUTHORIZATIONS_PER_SLICE = 250;

const ACL_PREDICATES = new Set([...Object.keys(LIST_BY_PREDICATE), ACL + 'mode']);

export function isAclMediaType(contentType: string | undefined): boolean {
  const essence = contentType === undefined ? '' : essenceOf(contentType);
  return essence === JSON_LD || essence === TURTLE;
}

function invalid(detail: string): HttpProblem {
  return new HttpProblem(400, `The ACL document is not valid: ${detail}`, { type: 'invalid-acl' });
}

/**
 * Reads the authorizations of a parsed ACL graph. With `strict`, anything an evaluator would silently
 * ignore is an error instead: the shape check for ACL documents clients write.
 */
export async function authorizationsFromQuads(quads: readonly Quad[], strict: boolean): Promise<Authorization[]> {
  const typed = new Set<string>();
  const bySubject = new Map<string, Quad[]>();
  for (const quad of quads) {
    const key = quad.subject.termType + ':' + quad.subject.value;
    if (quad.predicate.value === RDF_TYPE && quad.object.value === ACL_AUTHORIZATION) typed.add(key);
    if (!ACL_PREDICATES.has(quad.predicate.value)) continue;
    const list = bySubject.get(key) ?? [];
    list.push(quad);
    bySubject.set(key, list);
  }
  const result: Authorization[] = [];
  // Localizing an IRI parses a URL: a large ACL is read in slices with pauses (see cooperative.ts).
  const pacer = new Pacer(AUTHORIZATIONS_PER_SLICE);
  for (const key of typed) {
    await pacer.done(1);
    const authorization: Authorization = { accessTo: [], default: [], modes: new Set(), agents: [], agentClasses: [], agentGroups: [], origins: [] };
    for (const quad of bySubject.get(key) ?? []) {
      if (quad.object.termType !== 'NamedNode') {
        if (strict) throw invalid(`the object of <${quad.predicate.value}> must be an IRI, not a ${quad.object.termType}.`);
        continue;
      }
      if (quad.predicate.value === ACL + 'mode') {
        const mode = MODE_BY_IRI[quad.object.value];
        if (mode) authorization.modes.add(mode);
        else if (strict) throw invalid(`<${quad.object.value}> is not an access mode (use acl:Read, acl:Write, acl:Append or acl:Control).`);
        continue;
      }
      const list = LIST_BY_PREDICATE[quad.predicate.value]!;
      authorization[list].push(list === 'origins' ? quad.object.value : localizeIri(quad.object.value, undefined));
    }
    if (strict) checkShape(authorization, key);
    result.push(authorization);
  }
  if (strict) {
    for (const key of bySubject.keys()) {
      if (!typed.has(key)) throw invalid(`${nameOf(key)} uses acl: properties but is not typed acl:Authorization.`);
    }
  }
  return result;
}

/** A node as a client wrote it: the internal parsing origin (local-iri.ts) stripped, so `/alice/.acl#x`. */
function nameOf(key: string): string {
  const iri = key.replace(/^NamedNode:/, '').replace(/^BlankNode:/, '_:');
  return iri.startsWith(LOCAL_ORIGIN + '/') ? iri.slice(LOCAL_ORIGIN.length) : iri;
}

function checkShape(authorization: Authorization, key: string): void {
  const name = nameOf(key);
  if (authorization.accessTo.length + authorization.default.length === 0) throw invalid(`${name} has neither acl:accessTo nor acl:default.`);
  if (authorization.modes.size === 0) throw invalid(`${name} has no acl:mode.`);
  const subjects = authorization.agents.length + authorization.agentClasses.length + authorization.agentGroups.length + authorization.origins.length;
  if (subjects === 0) throw invalid(`${name} names no acl:agent, acl:agentClass, acl:agentGroup or acl:origin.`);
}

/** Parses and shape-checks an ACL document a client is writing; malformed documents are 400 problems. */
export async function validateAclDocument(text: string, contentType: string, aclPath: string): Promise<void> {
  if (!isAclMediaType(contentType)) {
    throw new HttpProblem(415, 'ACL documents must be JSON-LD (application/ld+json) or Turtle (text/turtle).', { type: 'unsupported-media-type' });
  }
  await authorizationsFromQuads(await parseRdf(text, essenceOf(contentType), localBase(aclPath)), true);
}

/** Parses a stored ACL document for evaluation. */
export async function parseAclDocument(text: string, contentType: string | undefined, aclPath: string): Promise<Authorization[]> {
  const type = contentType && isAclMediaType(contentType) ? essenceOf(contentType) : TURTLE;
  return authorizationsFromQuads(await parseRdf(text, type, localBase(aclPath)), false);
}
