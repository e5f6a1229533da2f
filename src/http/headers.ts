/** Response headers every resource answer carries (DESIGN.md §2). */

export const LDP = 'http://www.w3.org/ns/ldp#';
export const PIM_STORAGE = 'http://www.w3.org/ns/pim/space#Storage';

export const ACCEPT_PATCH = 'text/n3, application/sparql-update';

export const EXPOSED_HEADERS = [
  'Accept-Patch',
  'Accept-Post',
  'Accept-Put',
  'Accept-Ranges',
  'Allow',
  'Content-Length',
  'Content-Range',
  'Content-Type',
  'ETag',
  'Last-Modified',
  'Link',
  'Location',
  'MS-Author-Via',
  'Retry-After',
  'Updates-Via',
  'Vary',
  'WAC-Allow',
  'WWW-Authenticate',
].join(', ');

export const VARY = 'Accept, Authorization, Origin';

/**
 * An answer's headers as a plain record, names in lower case. Every runtime's Response takes it as it is, and
 * on Node one that nothing reads afterwards is written out without a Headers object ever being made.
 */
export type HeaderRecord = Record<string, string>;

/** Sets a header (`name` in lower case) in a Headers object or a record. */
export function setHeader(headers: Headers | HeaderRecord, name: string, value: string): void {
  if (headers instanceof Headers) headers.set(name, value);
  else headers[name] = value;
}

/** A header's value (`name` in lower case) in a Headers object or a record; null when absent. */
export function headerOf(headers: Headers | HeaderRecord, name: string): string | null {
  return headers instanceof Headers ? headers.get(name) : (headers[name] ?? null);
}

/**
 * Marks an answer that already carries its CORS and isolation headers (see `finishedResponse` in
 * ldp/respond.ts): the middleware that adds those to every other answer leaves it alone. A property, not a
 * WeakSet: one per request would weigh on every garbage collection.
 */
const FINISHED = Symbol('svc.finished');

export function markFinished(response: Response): Response {
  (response as Response & { [FINISHED]?: true })[FINISHED] = true;
  return response;
}

export function isFinished(response: Response): boolean {
  return (response as Response & { [FINISHED]?: true })[FINISHED] === true;
}

const CONTAINER_TYPE_LINKS = `<${LDP}Container>; rel="type", <${LDP}BasicContainer>; rel="type", <${LDP}Resource>; rel="type"`;
const RESOURCE_TYPE_LINKS = `<${LDP}Resource>; rel="type"`;

export function typeLinks(isContainer: boolean, isStorageRoot: boolean): string {
  const links = isContainer ? CONTAINER_TYPE_LINKS : RESOURCE_TYPE_LINKS;
  return isStorageRoot ? `${links}, <${PIM_STORAGE}>; rel="type"` : links;
}

/** The methods a resource answers; a storage root (server or pod root) cannot be deleted. */
export function allowFor(isContainer: boolean, isStorageRoot = false): string {
  // PATCH of a container is refused (409: its triples are the server's), so containers do not list it.
  if (isStorageRoot) return 'OPTIONS, HEAD, GET, POST, PUT';
  return isContainer ? 'OPTIONS, HEAD, GET, POST, PUT, DELETE' : 'OPTIONS, HEAD, GET, PUT, PATCH, DELETE';
}

/**
 * The server's own pages and endpoints (`/idp/*`, `/oauth/*`): the identity provider's session cookie rides
 * on browser requests there, so they are no API for other origins (docs/security.md).
 */
export function isServerPagePath(url: string): boolean {
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return path !== -1 && (url.startsWith('/idp/', path) || url.startsWith('/oauth/', path));
}

/**
 * CORS for browser apps: on resources, reflect the origin (credentialed requests need that) and expose every
 * header they read. The server's own pages answer any origin, but never with credentials: an app reads the
 * token endpoint's answer, no page reads another's session.
 */
export function applyCors(request: Request, headers: Headers | HeaderRecord, origin = request.headers.get('origin')): void {
  // A sandboxed page (a stored one, see isolation.ts) has the opaque origin "null": no credentials for it.
  if (origin && origin !== 'null' && !isServerPagePath(request.url)) {
    setHeader(headers, 'access-control-allow-origin', origin);
    setHeader(headers, 'access-control-allow-credentials', 'true');
  } else setHeader(headers, 'access-control-allow-origin', '*');
  setHeader(headers, 'access-control-expose-headers', EXPOSED_HEADERS);
  if (request.method === 'OPTIONS') {
    setHeader(headers, 'access-control-allow-methods', 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE');
    setHeader(
      headers,
      'access-control-allow-headers',
      request.headers.get('access-control-request-headers') ?? 'Accept, Authorization, Content-Type, DPoP, If-Match, If-None-Match, Link, Range, Slug',
    );
    setHeader(headers, 'access-control-max-age', '86400');
  }
}
