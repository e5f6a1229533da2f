/**
 * What one RDF document may hold to be parsed (`--max-rdf-size`): its text, and its triples, which cost far more
 * memory than their text when they are dense (`( 1 1 1 ... )` is two triples for every two characters). Bodies
 * of other types go up to `--max-body-size` unparsed.
 */
import { formatSize } from '../config/sizes.ts';
import { HttpProblem } from '../http/problem.ts';

export interface RdfLimits {
  maxBytes: number;
  maxTriples: number;
}

/** A document may hold one triple for every this many bytes of the size limit (131,072 for the default 4 MB). */
const BYTES_PER_TRIPLE = 32;

export function rdfLimitsOf(maxRdfSize: number): RdfLimits {
  return { maxBytes: maxRdfSize, maxTriples: Math.floor(maxRdfSize / BYTES_PER_TRIPLE) };
}

/** The limits of the default `--max-rdf-size` (4 MB): for documents read where no configuration reaches (ACLs, groups, profiles). */
export const DEFAULT_RDF_LIMITS = rdfLimitsOf(4 * 1024 * 1024);

const ADVICE = 'Split the data into several documents, or store it under a type that is not parsed (such as text/plain or application/octet-stream).';

export function rdfTooLarge(limits: RdfLimits): HttpProblem {
  return new HttpProblem(413, `RDF documents are parsed, and this server parses at most ${formatSize(limits.maxBytes)} of RDF in one document. ${ADVICE}`, {
    type: 'rdf-too-large',
    extra: { limit: limits.maxBytes },
  });
}

/** A PATCH whose result the server could not parse again (for the next PATCH, or to serve it in another type). */
export function patchedTooLarge(limits: RdfLimits, size: number): HttpProblem {
  return new HttpProblem(413, `The patched document would be ${formatSize(size)}, more than the ${formatSize(limits.maxBytes)} of RDF this server parses in one document, so it could not be patched again. ${ADVICE}`, {
    type: 'rdf-too-large',
    extra: { limit: limits.maxBytes },
  });
}

export function tooManyTriples(limits: RdfLimits): HttpProblem {
  return new HttpProblem(413, `This RDF document holds more than ${limits.maxTriples} triples, the most this server parses in one document. ${ADVICE}`, {
    type: 'rdf-too-many-triples',
    extra: { limit: limits.maxTriples },
  });
}
