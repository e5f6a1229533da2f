import { JSON_LD, rdfOutputs } from '../rdf/media.ts';
import { parseAccept, qualityOf } from './accept.ts';

const RDF_TYPES = [JSON_LD, ...rdfOutputs(true)];

/**
 * Whether a client ranks `text/html` above every RDF type (q-values and wildcards counted): a browser's
 * navigation (`text/html,...,*\/*;q=0.8`) does, mashlib's own data fetches (`text/turtle` beside
 * `text/html;q=0.8`) and `fetch`-style clients (`*\/*`, or no `Accept`) do not.
 */
export function prefersHtml(acceptHeader: string | null): boolean {
  const accept = parseAccept(acceptHeader);
  const html = qualityOf(accept, 'text/html');
  return html > 0 && RDF_TYPES.every((type) => qualityOf(accept, type) < html);
}

/**
 * Whether a person opened the URL in a window: typed it, bookmarked it or followed a link to it. Browsers
 * say so with `Sec-Fetch-Mode: navigate` (and `Sec-Fetch-Dest: document`, not a frame's); a client without
 * these headers counts when its `Accept` prefers HTML. Apps' `fetch` calls (`cors`) and curl do not.
 */
export function isWindowNavigation(request: Request): boolean {
  const mode = request.headers.get('sec-fetch-mode');
  if (mode === null) return prefersHtml(request.headers.get('accept'));
  const destination = request.headers.get('sec-fetch-dest');
  return mode === 'navigate' && (destination === null || destination === 'document');
}
