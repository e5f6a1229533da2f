import { readLimited } from '../../http/outbound-fetch.ts';
import type { OutboundFetch } from '../../platform.ts';

/** What the verifier reads documents with: the runtime's guarded fetch, and the server itself for its own URLs. */
export interface DocumentSources {
  /** The platform's guarded outbound fetch; absent on a runtime that has none (only local documents are read). */
  outbound?: OutboundFetch;
  /** Answers a request with this server's own handlers, without a network round trip. */
  local(request: Request): Promise<Response>;
}

/** A fetched document: its text, media type (essence) and the URL that answered (after redirects). */
export interface FetchedDocument {
  text: string;
  contentType: string;
  url: string;
}

/** Whether a URL is read from this server itself: it is on the origin the request came to. */
export function isLocal(url: string, serverOrigin: string): boolean {
  return new URL(url).origin === serverOrigin;
}

/** Largest document read (issuer discovery, JWKS, WebID profile). */
export const DOCUMENT_BUDGET_BYTES = 512 * 1024;

/**
 * Reads a document. URLs on the origin the request came to are answered by this server itself, as an
 * anonymous GET (Web Access Control applies as for any reader, so it is what a remote fetch would get),
 * with no network round trip and no loopback address to allow. Others go through the guarded outbound fetch.
 * Throws an Error whose message says what went wrong.
 */
export async function fetchDocument(sources: DocumentSources, url: string, accept: string, serverOrigin: string): Promise<FetchedDocument> {
  const target = new URL(url);
  target.hash = '';
  const local = isLocal(url, serverOrigin);
  if (!local && !sources.outbound) throw new Error(`this runtime cannot fetch ${target.href}`);
  const headers = { accept };
  const response = local ? await sources.local(new Request(target, { headers })) : await sources.outbound!(target, { headers });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${target.href} answered ${response.status}`);
  }
  const bytes = await readLimited(response, target.href, DOCUMENT_BUDGET_BYTES);
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return { text: new TextDecoder().decode(bytes), contentType, url: response.url || target.href };
}
