import { essenceOf } from '../storage/media-types.ts';

export const JSON_LD = 'application/ld+json';
export const TURTLE = 'text/turtle';
export const N_TRIPLES = 'application/n-triples';
export const N3 = 'text/n3';

/** Stored types the server treats as RDF (and so negotiates and patches). */
const RDF_TYPES = new Set([JSON_LD, TURTLE, N_TRIPLES, N3]);

export function isRdfType(contentType: string | undefined): boolean {
  return contentType !== undefined && RDF_TYPES.has(essenceOf(contentType));
}

/** Types a client may write as RDF: JSON-LD always, the rest only with --conneg. */
export function acceptedRdfInputs(conneg: boolean): readonly string[] {
  return conneg ? [JSON_LD, TURTLE, N_TRIPLES, N3] : [JSON_LD];
}

/** Representations offered for an RDF resource, in the server's order of preference. */
export function rdfOutputs(conneg: boolean): readonly string[] {
  return conneg ? [JSON_LD, TURTLE, N_TRIPLES] : [JSON_LD];
}

/**
 * Representations of a graph the server makes itself (container listings, the pod profile), in the order ties
 * go: Turtle first under --conneg, the form Solid clients expect from a wildcard `Accept`.
 */
export function generatedRdfOutputs(conneg: boolean): readonly string[] {
  return conneg ? [TURTLE, JSON_LD, N_TRIPLES] : [JSON_LD];
}
