import type { Quad } from 'n3';
import { parseRdf } from '../../rdf/convert.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from '../../rdf/media.ts';
import { fetchDocument, type DocumentSources } from './documents.ts';

const ACCEPT = `${TURTLE}, ${JSON_LD};q=0.9`;
const PARSEABLE: Record<string, string> = { [TURTLE]: TURTLE, [JSON_LD]: JSON_LD, 'application/json': JSON_LD, [N_TRIPLES]: N_TRIPLES, [N3]: N3 };

/**
 * The triples of a WebID profile: read from this server for its own WebIDs, else through the guarded
 * outbound fetch (see fetchDocument). Rejects with an Error that says why when it cannot be read or parsed.
 */
export async function readWebIdProfile(sources: DocumentSources, webId: string, serverOrigin: string): Promise<Quad[]> {
  const document = await fetchDocument(sources, webId, ACCEPT, serverOrigin);
  const type = PARSEABLE[document.contentType];
  if (!type) throw new Error(`the WebID profile ${webId} is ${document.contentType || 'of no stated type'}, not RDF this server reads`);
  try {
    return await parseRdf(document.text, type, document.url);
  } catch (error) {
    throw new Error(`the WebID profile ${webId} cannot be parsed: ${(error as Error).message}`);
  }
}
