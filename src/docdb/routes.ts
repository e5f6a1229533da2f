import type { FeatureContext } from '../features/feature.ts';
import { negotiate, parseAccept } from '../http/accept.ts';
import { readLimitedText } from '../http/body.ts';
import { formatEtag, ifMatchHolds, ifNoneMatchHolds } from '../http/conditional.ts';
import { HttpProblem } from '../http/problem.ts';
import { convertRdf, parseRdfDocument } from '../rdf/convert.ts';
import { generatedRdfOutputs, JSON_LD, rdfOutputs } from '../rdf/media.ts';
import { KeyedLock } from '../storage/keyed-lock.ts';
import { essenceOf } from '../storage/media-types.ts';
import { urlPathFromStoragePath } from '../storage/paths.ts';
import { formatWacAllow } from '../wac/access-control.ts';
import type { DatabaseAvailability } from './availability.ts';
import { DocumentStoreUnavailable, type DocumentStore, type StoredDocument } from './store.ts';
import type { DocdbTarget } from './target.ts';

/** MongoDB keeps a document in at most 16 MiB of BSON; larger JSON-LD is refused before it gets there. */
export const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
/** Times a write decides again when another server process changed the document between its read and its write. */
const WRITE_ATTEMPTS = 5;
const LDP = 'http://www.w3.org/ns/ldp#';

const encoder = new TextEncoder();

const documentHeaders = { Link: `<${LDP}Resource>; rel="type"`, 'Accept-Put': JSON_LD };
const containerHeaders = { Link: `<${LDP}BasicContainer>; rel="type", <${LDP}Container>; rel="type"`, Allow: 'GET, HEAD, OPTIONS' };

function methodNotAllowed(target: DocdbTarget): HttpProblem {
  const allow = target.isContainer ? 'GET, HEAD, OPTIONS' : 'GET, HEAD, PUT, DELETE, OPTIONS';
  const detail = target.isContainer
    ? 'Containers under /db/ are derived from the stored documents: they are read, not written.'
    : 'Documents under /db/ are read with GET, written with PUT and removed with DELETE.';
  return new HttpProblem(405, detail, { type: 'method-not-allowed', headers: { Allow: allow } });
}

const notFound = () => new HttpProblem(404, 'There is no document at this URL.', { type: 'not-found' });
const preconditionFailed = () => new HttpProblem(412, 'The precondition (If-Match or If-None-Match) does not hold for the current document.', { type: 'precondition-failed' });

/** A member's IRI relative to its container: `a`, `sub/`, percent-encoded like every URL the server writes. */
function relativeMember(container: string, member: string): string {
  return urlPathFromStoragePath(member).slice(urlPathFromStoragePath(container).length);
}

/**
 * Answers `/db/<user>/...` requests: `target` is already parsed; database outages reject with
 * DocumentStoreUnavailable, at once for writes while `availability` knows the database is down.
 */
export function docdbRequestHandler(context: FeatureContext, store: DocumentStore, availability: DatabaseAvailability) {
  const { config, access, platform, quotas } = context;
  // Writes of one pod run one at a time in this process: a quota check and the write it allows never interleave.
  const podWrites = new KeyedLock();

  const negotiated = (request: Request, offers: readonly string[]): string => {
    const type = negotiate(parseAccept(request.headers.get('accept')), offers);
    if (!type) throw new HttpProblem(406, `This resource is available as ${offers.join(', ')}.`, { type: 'not-acceptable' });
    return type;
  };

  const read = async (request: Request, target: DocdbTarget, wacAllow: string, head: boolean): Promise<Response> => {
    const document = await store.get(target.id);
    if (!document) throw notFound();
    const etag = formatEtag(document.version);
    const headers = new Headers({ ...documentHeaders, ETag: etag, 'Last-Modified': new Date(document.modified).toUTCString(), Vary: 'Accept', 'WAC-Allow': wacAllow });
    if (!ifMatchHolds(request.headers.get('if-match'), document.version)) throw preconditionFailed();
    if (!ifNoneMatchHolds(request.headers.get('if-none-match'), document.version)) return new Response(null, { status: 304, headers });
    const type = negotiated(request, rdfOutputs(config.conneg));
    const body = type === JSON_LD ? document.body : await convertRdf(document.body, JSON_LD, type, request.url);
    headers.set('Content-Type', type);
    return new Response(head ? null : body, { status: 200, headers });
  };

  const list = async (request: Request, target: DocdbTarget, wacAllow: string, head: boolean): Promise<Response> => {
    const members = await store.members(target.id);
    const isPodContainer = target.id === '/db' + target.podRoot;
    if (!isPodContainer && members.documents.length === 0 && members.containers.length === 0) {
      throw new HttpProblem(404, 'No document has a URL under this container.', { type: 'not-found' });
    }
    const contained = [...members.containers, ...members.documents].sort().map((member) => ({ '@id': relativeMember(target.id, member) }));
    const listing = JSON.stringify({ '@context': { ldp: LDP }, '@id': '', '@type': ['ldp:Container', 'ldp:BasicContainer'], 'ldp:contains': contained });
    const type = negotiated(request, generatedRdfOutputs(config.conneg));
    const body = type === JSON_LD ? listing : await convertRdf(listing, JSON_LD, type, request.url);
    const headers = new Headers({ ...containerHeaders, 'Content-Type': type, Vary: 'Accept', 'WAC-Allow': wacAllow });
    return new Response(head ? null : body, { status: 200, headers });
  };

  /** Runs `attempt` on the current document until its conditional database write lands (another process may write too). */
  const decideAndWrite = async (target: DocdbTarget, attempt: (current: StoredDocument | null) => Promise<Response | null>): Promise<Response> => {
    // During an outage a write would wait out its own failure behind every earlier write of the pod.
    availability.refuseWhileDown();
    return podWrites.run(target.podRoot, async () => {
      // The outage may have been found while this write waited for the lock.
      availability.refuseWhileDown();
      try {
        for (let tries = 0; tries < WRITE_ATTEMPTS; tries++) {
          const answer = await attempt(await store.get(target.id));
          if (answer) return answer;
        }
      } catch (error) {
        // Known before the next write of the pod takes the lock.
        if (error instanceof DocumentStoreUnavailable) availability.failed(error);
        throw error;
      }
      throw new HttpProblem(409, 'The document kept changing while this request tried to write it; try again.', { type: 'write-conflict' });
    });
  };

  const write = async (request: Request, target: DocdbTarget): Promise<Response> => {
    const type = essenceOf(request.headers.get('content-type') ?? '');
    if (type !== JSON_LD) {
      throw new HttpProblem(415, `Documents under /db/ are JSON-LD: send Content-Type: ${JSON_LD}.`, { type: 'unsupported-media-type', headers: { 'Accept-Put': JSON_LD } });
    }
    const text = await readLimitedText(request, Math.min(config.maxBodySize, MAX_DOCUMENT_BYTES));
    // Parsed only to refuse what is not JSON-LD (with the same limits as every RDF body); the text is stored as sent.
    await parseRdfDocument(text, JSON_LD, request.url);
    const size = encoder.encode(text).byteLength;
    return decideAndWrite(target, async (current) => {
      if (!ifMatchHolds(request.headers.get('if-match'), current?.version ?? null)) throw preconditionFailed();
      if (!ifNoneMatchHolds(request.headers.get('if-none-match'), current?.version ?? null)) throw preconditionFailed();
      const previousSize = current?.size ?? 0;
      const next: StoredDocument = { id: target.id, body: text, version: crypto.randomUUID(), size, modified: context.now() };
      // The space is held in the pod's count while the database writes, and the change counted when it has.
      return quotas.outside(target.podRoot, { size, previousSize }, async () => {
        const written = current ? await store.replace(next, current.version) : await store.create(next);
        if (!written) return null;
        const headers = { ETag: formatEtag(next.version), ...(!current && { Location: request.url }) };
        return { value: new Response(null, { status: current ? 204 : 201, headers }), change: size - previousSize };
      });
    });
  };

  const remove = (request: Request, target: DocdbTarget): Promise<Response> =>
    decideAndWrite(target, async (current) => {
      if (!current) throw notFound();
      if (!ifMatchHolds(request.headers.get('if-match'), current.version)) throw preconditionFailed();
      return quotas.outside(target.podRoot, { size: 0, previousSize: current.size }, async () => {
        if (!(await store.remove(target.id, current.version))) return null;
        return { value: new Response(null, { status: 204 }), change: -current.size };
      });
    });

  return async (request: Request, target: DocdbTarget): Promise<Response> => {
    const method = request.method;
    const writing = method === 'PUT' || method === 'DELETE';
    if (!writing && method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(target);
    if (writing && target.isContainer) throw methodNotAllowed(target);
    if (writing && config.readOnly) {
      throw new HttpProblem(405, 'This server is read-only (--read-only).', { type: 'read-only', headers: { Allow: 'GET, HEAD, OPTIONS' } });
    }
    if (!(await platform.storage.head(target.podRoot))) throw new HttpProblem(404, `There is no pod ${target.podRoot} on this server.`, { type: 'not-found' });
    const caller = await context.authenticate(request);
    await access.require(caller, [{ path: target.aclPath, anyOf: [writing ? 'write' : 'read'] }]);
    if (method === 'PUT') return write(request, target);
    if (method === 'DELETE') return remove(request, target);
    const wacAllow = formatWacAllow(await access.allowedModes(caller, target.aclPath));
    return (target.isContainer ? list : read)(request, target, wacAllow, method === 'HEAD');
  };
}
