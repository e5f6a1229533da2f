import { parseRdf } from '../../rdf/convert.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from '../../rdf/media.ts';
import { BoundedCache } from '../../storage/bounded-cache.ts';
import { fetchDocument, isLocal, type DocumentSources } from './documents.ts';
import { normalizedIssuer } from './issuer-keys.ts';

const OIDC_ISSUER = 'http://www.w3.org/ns/solid/terms#oidcIssuer';
/** How long what a WebID profile says about its issuers (or that it could not be read) is believed. */
export const WEBID_ISSUERS_TTL_MS = 10_000;
const MAX_WEBIDS = 10_000;
const ACCEPT = `${TURTLE}, ${JSON_LD};q=0.9`;
const PARSEABLE: Record<string, string> = { [TURTLE]: TURTLE, [JSON_LD]: JSON_LD, 'application/json': JSON_LD, [N_TRIPLES]: N_TRIPLES, [N3]: N3 };

interface Entry {
  issuers: Promise<ReadonlySet<string>>;
  fetchedAt: number;
}

/**
 * The issuers a WebID profile lists (`solid:oidcIssuer`), which are the only ones allowed to speak for it
 * (Solid-OIDC §5). Each profile is read at most every 10 seconds (concurrent requests share the read), so
 * removing an issuer from a profile takes effect within that time.
 */
export class WebIdIssuers {
  readonly #sources: DocumentSources;
  readonly #now: () => number;
  readonly #entries = new BoundedCache<string, Entry>(MAX_WEBIDS);

  constructor(sources: DocumentSources, now: () => number) {
    this.#sources = sources;
    this.#now = now;
  }

  /** Whether the profile of `webId` lists `issuer`; rejects with an Error when the profile cannot be read. */
  async lists(webId: string, issuer: string, serverOrigin: string): Promise<boolean> {
    const now = this.#now();
    // A profile read from this server (its origin is the request's) answers only requests to that origin:
    // a request under a spoofed Host must not leave an answer behind for everyone else.
    const key = `${isLocal(webId, serverOrigin) ? 'local' : 'remote'} ${webId}`;
    let entry = this.#entries.get(key);
    if (!entry || now - entry.fetchedAt >= WEBID_ISSUERS_TTL_MS) {
      entry = { issuers: this.#read(webId, serverOrigin), fetchedAt: now };
      this.#entries.set(key, entry);
    }
    return (await entry.issuers).has(normalizedIssuer(issuer));
  }

  async #read(webId: string, serverOrigin: string): Promise<ReadonlySet<string>> {
    const document = await fetchDocument(this.#sources, webId, ACCEPT, serverOrigin);
    const type = PARSEABLE[document.contentType];
    if (!type) throw new Error(`the WebID profile ${webId} is ${document.contentType || 'of no stated type'}, not RDF this server reads`);
    let quads;
    try {
      quads = await parseRdf(document.text, type, document.url);
    } catch (error) {
      throw new Error(`the WebID profile ${webId} cannot be parsed: ${(error as Error).message}`);
    }
    const issuers = new Set<string>();
    for (const quad of quads) {
      if (quad.subject.value === webId && quad.predicate.value === OIDC_ISSUER && quad.object.termType === 'NamedNode') issuers.add(normalizedIssuer(quad.object.value));
    }
    return issuers;
  }
}
