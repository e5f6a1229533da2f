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
export function applyCors(request: Request, headers: Headers): void {
  const origin = request.headers.get('origin');
  // A sandboxed page (a stored one, see isolation.ts) has the opaque origin "null": no credentials for it.
  if (origin && origin !== 'null' && !isServerPagePath(request.url)) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Credentials', 'true');
  } else headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (request.method === 'OPTIONS') {
    headers.set('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE');
    headers.set(
      'Access-Control-Allow-Headers',
      request.headers.get('access-control-request-headers') ??
        'Accept, Authorization, Content-Type, DPoP, If-Match, If-None-Match, Link, Range, Slug',
    );
    headers.set('Access-Control-Max-Age', '86400');
  }
}
