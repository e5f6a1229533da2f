import type { Config } from '../config/options.ts';
import { limitedBody } from '../http/body.ts';
import { formatEtag, ifMatchHolds, ifNoneMatchHolds } from '../http/conditional.ts';
import { HttpProblem } from '../http/problem.ts';
import { isHiddenFromListing } from '../ldp/auxiliary.ts';
import type { Change } from '../ldp/context.ts';
import { membershipRequirements, writePreconditions } from '../ldp/put.ts';
import { requireContentType } from '../ldp/write-body.ts';
import { parentOf } from '../storage/paths.ts';
import { isStorageError, type StorageDriver } from '../storage/types.ts';
import type { AccessControl, Caller } from '../wac/access-control.ts';
import { authorize, forWebAccessControl } from './access.ts';
import { describeFolder, FOLDER_CONTEXT } from './folder.ts';
import type { RemoteStorageTarget } from './target.ts';

export interface RemoteStorageDeps {
  config: Config;
  /** The pod storage the LDP handlers use (quotas counted, ACL writes watched). */
  storage: StorageDriver;
  access: AccessControl;
  /** Hands what a request changed to every feature's `afterWrite` (notifications). */
  publish(changes: readonly Change[]): void;
}

const FOLDER_METHODS = 'OPTIONS, GET, HEAD';
const DOCUMENT_METHODS = 'OPTIONS, GET, HEAD, PUT, DELETE';

function methodNotAllowed(target: RemoteStorageTarget, method: string): HttpProblem {
  const detail = target.isFolder
    ? 'Folders are read with GET and HEAD; they come and go with the documents in them (PUT and DELETE go to documents).'
    : `The method ${method} is not part of remoteStorage: documents answer GET, HEAD, PUT and DELETE.`;
  return new HttpProblem(405, detail, { type: 'method-not-allowed', headers: { Allow: target.isFolder ? FOLDER_METHODS : DOCUMENT_METHODS } });
}

const notFound = () => new HttpProblem(404, 'There is no document at this URL.', { type: 'not-found' });
const preconditionFailed = (detail: string) => new HttpProblem(412, detail, { type: 'precondition-failed' });

/** Does the container hold anything (an ACL document included, which keeps a folder the owner set access on)? */
async function hasMembers(storage: StorageDriver, container: string): Promise<boolean> {
  const members = storage.list(container)[Symbol.asyncIterator]();
  const first = await members.next();
  await members.return?.();
  return !first.done;
}

/** Answers `/storage/<user>/...` requests on the documents kept in the user's pod; see docs/remotestorage.md. */
export function remoteStorageHandler(deps: RemoteStorageDeps) {
  const { config, storage, access } = deps;

  const readDocument = async (request: Request, caller: Caller, target: RemoteStorageTarget): Promise<Response> => {
    await authorize(access, caller, target, false, async () => [{ path: target.path, anyOf: ['read'] }]);
    const head = request.method === 'HEAD';
    const stored = head ? await storage.head(target.path).then((meta) => meta && { meta, body: null }) : await storage.get(target.path);
    if (!stored || stored.meta.isContainer) throw notFound();
    const { meta } = stored;
    const headers = new Headers({ ETag: formatEtag(meta.etag), 'Cache-Control': 'no-cache' });
    const unused = () => stored.body?.cancel();
    if (!ifMatchHolds(request.headers.get('if-match'), meta.etag)) {
      await unused();
      throw preconditionFailed('The document has changed: its ETag does not match If-Match.');
    }
    if (!ifNoneMatchHolds(request.headers.get('if-none-match'), meta.etag)) {
      await unused();
      return new Response(null, { status: 304, headers });
    }
    headers.set('Content-Type', meta.contentType ?? 'application/octet-stream');
    headers.set('Content-Length', String(meta.size));
    headers.set('Last-Modified', new Date(meta.modified).toUTCString());
    return new Response(stored.body, { status: 200, headers });
  };

  const readFolder = async (request: Request, caller: Caller, target: RemoteStorageTarget): Promise<Response> => {
    await authorize(access, caller, target, false, async () => [{ path: target.path, anyOf: ['read'] }]);
    const folder = await describeFolder(storage, target.path);
    const headers = new Headers({ ETag: formatEtag(folder.etag), 'Cache-Control': 'no-cache' });
    if (!ifMatchHolds(request.headers.get('if-match'), folder.etag)) throw preconditionFailed('The folder has changed: its ETag does not match If-Match.');
    if (!ifNoneMatchHolds(request.headers.get('if-none-match'), folder.etag)) return new Response(null, { status: 304, headers });
    const body = JSON.stringify({ '@context': FOLDER_CONTEXT, items: folder.items });
    headers.set('Content-Type', 'application/ld+json');
    headers.set('Content-Length', String(new TextEncoder().encode(body).byteLength));
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  };

  const write = async (request: Request, caller: Caller, target: RemoteStorageTarget): Promise<Response> => {
    const current = await storage.head(target.path);
    await authorize(access, caller, target, true, async () => [
      { path: target.path, anyOf: ['write'] },
      ...(current ? [] : await membershipRequirements(storage, parentOf(target.path)!)),
    ]);
    const conditions = writePreconditions(request, current);
    if (request.headers.has('content-range')) {
      throw new HttpProblem(400, 'PUT replaces the whole document; Content-Range (a partial PUT) is not supported.', { type: 'partial-put' });
    }
    const contentType = requireContentType(request);
    const result = await storage.put(target.path, limitedBody(request, config.maxBodySize), { contentType, ...conditions });
    if (!result) throw preconditionFailed('The document changed while the request was processed (the precondition no longer holds).');
    deps.publish([
      ...result.createdContainers.map((path): Change => ({ path, kind: 'create' })),
      { path: target.path, kind: result.created ? 'create' : 'update' },
    ]);
    return new Response(null, { status: result.created ? 201 : 200, headers: { ETag: formatEtag(result.meta.etag) } });
  };

  /** Removes the folders a delete left empty, up to the storage root, as far as the caller's WAC rights reach. */
  const removeEmptyFolders = async (caller: Caller, target: RemoteStorageTarget, from: string): Promise<Change[]> => {
    const removed: Change[] = [];
    for (let folder: string | null = from; folder !== null && folder !== target.root && folder.startsWith(target.root); folder = parentOf(folder)) {
      try {
        if (await hasMembers(storage, folder)) return removed;
        await access.require(caller, [
          { path: folder, anyOf: ['write'] },
          { path: parentOf(folder)!, anyOf: ['write'] },
        ]);
        if (!(await storage.delete(folder))) return removed;
      } catch (error) {
        if (error instanceof HttpProblem || isStorageError(error)) return removed;
        throw error;
      }
      removed.push({ path: folder, kind: 'delete' });
    }
    return removed;
  };

  const remove = async (request: Request, caller: Caller, target: RemoteStorageTarget): Promise<Response> => {
    const parent = parentOf(target.path)!;
    await authorize(access, caller, target, true, async () => [
      { path: target.path, anyOf: ['write'] },
      { path: parent, anyOf: ['write'] },
    ]);
    const current = await storage.head(target.path);
    const document = current && !current.isContainer ? current : null;
    // As for PUT (and the reference server): If-Match of a document that is not there fails its precondition.
    if (!document && !request.headers.has('if-match')) throw notFound();
    const { ifMatch } = writePreconditions(request, document);
    const deleted = await storage.delete(target.path, ifMatch === undefined ? undefined : { ifMatch });
    if (!deleted) {
      if (ifMatch === undefined) throw notFound();
      throw preconditionFailed('The document changed while the request was processed.');
    }
    // Its ACL document, if the owner gave it one through LDP, goes with it (as an LDP DELETE does).
    await storage.delete(target.path + '.acl').catch(() => null);
    deps.publish([{ path: target.path, kind: 'delete' }, ...(await removeEmptyFolders(forWebAccessControl(caller), target, parent))]);
    return new Response(null, { status: 200, headers: { ETag: formatEtag(deleted.etag) } });
  };

  return async (request: Request, caller: Caller, target: RemoteStorageTarget): Promise<Response> => {
    const method = request.method;
    const writing = method === 'PUT' || method === 'DELETE';
    if (method !== 'GET' && method !== 'HEAD' && !writing) throw methodNotAllowed(target, method);
    if (writing && target.isFolder) throw methodNotAllowed(target, method);
    if (writing && config.readOnly) {
      throw new HttpProblem(405, 'This server is read-only (--read-only).', { type: 'read-only', headers: { Allow: 'OPTIONS, GET, HEAD' } });
    }
    if (isHiddenFromListing(target.path)) {
      throw new HttpProblem(403, 'ACL documents and the server\'s own files are not remoteStorage documents; manage access through the pod (LDP).', { type: 'reserved-name' });
    }
    if (method === 'PUT') return write(request, caller, target);
    if (method === 'DELETE') return remove(request, caller, target);
    return target.isFolder ? readFolder(request, caller, target) : readDocument(request, caller, target);
  };
}
