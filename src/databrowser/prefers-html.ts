import { parseAccept, qualityOf } from '../http/accept.ts';
import { JSON_LD, rdfOutputs } from '../rdf/media.ts';

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
