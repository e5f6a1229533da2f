/**
 * Isolation of stored content from the server's own pages (docs/security.md). A page a pod stored (HTML, SVG,
 * XML, or anything a browser would sniff into one) must never run with the origin that serves `/idp/*`,
 * `/oauth/*` and the account pages: there it could act with the logged-in visitor's session.
 */
import { applyCors, headerOf, isFinished, setHeader, type HeaderRecord } from './headers.ts';

/**
 * The policy of every answer that serves stored bytes on the server's own origin: a sandbox without
 * `allow-same-origin`, so the document runs in an opaque origin of its own, with no access to the server's
 * cookies, storage or same-origin reads. Scripts, forms, popups (which leave the sandbox: every stored answer
 * they open carries this policy again), dialogs and downloads stay allowed, so pages and simple apps still
 * render. Left out: `allow-same-origin` (the point), `allow-top-navigation*` (a page framed by the data browser
 * must not navigate the data browser away), `allow-storage-access-by-user-activation`, `allow-pointer-lock`,
 * `allow-orientation-lock`, `allow-presentation`.
 */
export const STORED_CONTENT_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-modals allow-downloads';

/**
 * Every answer gets `X-Content-Type-Options: nosniff`; one without a Content-Security-Policy of its own (the
 * server's pages and the data browser's wrapper set theirs) gets the stored-content sandbox. In subdomain mode
 * each pod's host is an origin of its own, which its apps need (their storage, their login): answers there keep
 * no sandbox, except for resources others may write (see `sandboxIfOthersWrite`); the base domain is sandboxed
 * as in path mode. The CORS headers (`applyCors`) are added after these. An answer made with both already in
 * its record (`finishedResponse`) is left alone.
 */
export function isolationAndCors(isPodHost: ((hostname: string) => boolean) | null): (request: Request, response: Response) => void {
  if (!isPodHost) {
    return (request, response) => {
      if (isFinished(response)) return;
      isolatedOnServerOrigin(response.headers);
      applyCors(request, response.headers);
    };
  }
  return (request, response) => {
    const headers = response.headers;
    headers.set('X-Content-Type-Options', 'nosniff');
    if (!headers.has('content-security-policy') && !isPodHost(new URL(request.url).hostname)) headers.set('Content-Security-Policy', STORED_CONTENT_POLICY);
    if (!isFinished(response)) applyCors(request, headers);
  };
}

/**
 * A resource that someone other than the pod's owner may have written (the public may append to or write it,
 * or to its container, as in an inbox) is sandboxed even on the pod's own host: it must not run with the
 * owner's origin either. Called with the public modes of the resource, and of its container for active types.
 */
export function sandboxIfOthersWrite(headers: Headers | HeaderRecord, publicModes: readonly string[]): void {
  if (publicModes.includes('append') || publicModes.includes('write')) setHeader(headers, 'content-security-policy', STORED_CONTENT_POLICY);
}

/** In path mode, what every answer gets (by the middleware, or in its record beforehand: `finishedResponse`). */
export function isolatedOnServerOrigin(headers: Headers | HeaderRecord): void {
  setHeader(headers, 'x-content-type-options', 'nosniff');
  if (headerOf(headers, 'content-security-policy') === null) setHeader(headers, 'content-security-policy', STORED_CONTENT_POLICY);
}

/** Types a browser shows as a document that may run script: HTML, XHTML, SVG, and XML (through XSLT). */
export function isActiveType(essence: string): boolean {
  return essence === 'text/html' || essence === 'text/xml' || essence === 'application/xml' || essence.endsWith('+xml');
}
