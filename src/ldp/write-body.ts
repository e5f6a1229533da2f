import { readLimitedText, storableBody } from '../http/body.ts';
import { HttpProblem } from '../http/problem.ts';
import { parseRdf } from '../rdf/convert.ts';
import { rdfLimitsOf, rdfTooLarge } from '../rdf/limits.ts';
import { acceptedRdfInputs, isRdfType, JSON_LD, TURTLE } from '../rdf/media.ts';
import { essenceOf, MAX_CONTENT_TYPE_LENGTH } from '../storage/media-types.ts';
import type { PutBody } from '../storage/types.ts';
import { isAclPath } from './auxiliary.ts';
import { urlFor, type LdpContext } from './context.ts';

export interface WriteBody {
  body: PutBody;
  contentType: string;
  /** Set for RDF bodies, which are parsed (and so validated) before anything is stored. */
  quads?: Awaited<ReturnType<typeof parseRdf>>;
}

/** A body declared at most this long is read whole before it is stored (bounded like the small bodies storage caches). */
const WHOLE_BODY_BYTES = 64 * 1024;

/**
 * Content type of a write; Solid requires one, and it is stored, so its length is capped. The body is stored
 * as sent, so one in a content coding (gzip, br) would be stored compressed and served as if it were not: it is
 * refused with 415 and the Accept-Encoding the server takes (RFC 9110 §8.4, §15.5.16).
 */
export function requireContentType(request: Request): string {
  const coding = request.headers.get('content-encoding');
  if (coding !== null && !coding.split(',').every((part) => ['', 'identity'].includes(part.trim().toLowerCase()))) {
    throw new HttpProblem(415, `This server stores a body as it is sent and does not decode Content-Encoding "${coding.slice(0, 100)}": send the body without a content coding.`, {
      type: 'unsupported-content-encoding',
      headers: { 'Accept-Encoding': 'identity' },
    });
  }
  const contentType = request.headers.get('content-type')?.trim();
  if (!contentType) {
    throw new HttpProblem(400, 'A Content-Type header is required to store a resource.', { type: 'missing-content-type' });
  }
  if (contentType.length > MAX_CONTENT_TYPE_LENGTH) {
    throw new HttpProblem(400, `The Content-Type is ${contentType.length} characters long; a stored content type may have at most ${MAX_CONTENT_TYPE_LENGTH}.`, {
      type: 'content-type-too-long',
    });
  }
  return contentType;
}

/**
 * The body of a PUT or POST, validated where its type is RDF. Non-RDF bodies stream straight through, cut
 * off at the size limit, unless they are declared small: those are read whole, so storage writes them in one
 * step (the fs driver in blocking calls, into a spare).
 */
export async function readWriteBody(ctx: LdpContext, path: string): Promise<WriteBody> {
  const contentType = requireContentType(ctx.request);
  const essence = essenceOf(contentType);
  const limit = ctx.config.maxBodySize;
  const isAcl = isAclPath(path);
  if (isAcl && essence !== JSON_LD && essence !== TURTLE) {
    throw new HttpProblem(415, 'ACL documents must be JSON-LD (application/ld+json) or Turtle (text/turtle).', { type: 'unsupported-media-type' });
  }
  if (!isRdfType(contentType)) return { body: await storableBody(ctx.request, limit, WHOLE_BODY_BYTES), contentType };
  if (!isAcl && !acceptedRdfInputs(ctx.config.conneg).includes(essence)) {
    throw new HttpProblem(415, `${essence} is accepted only with content negotiation enabled (start the server with --conneg, SVC_CONNEG=true or "conneg": true). Without it, send JSON-LD (application/ld+json).`, { type: 'conneg-disabled' });
  }
  const limits = rdfLimitsOf(Math.min(limit, ctx.config.maxRdfSize));
  const text = await readLimitedText(ctx.request, limits.maxBytes, () => rdfTooLarge(limits));
  const quads = await parseRdf(text, essence, urlFor(ctx, path), limits);
  return { body: text, contentType, quads };
}
