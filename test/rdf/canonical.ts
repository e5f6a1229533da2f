import jsonld from 'jsonld';
import { Writer, type Quad } from 'n3';
import { parseRdf } from '../../src/rdf/convert.ts';

/** Canonical N-Quads (RDFC-1.0) of a set of quads: equal strings mean isomorphic graphs. */
export async function canonical(quads: Quad[]): Promise<string> {
  const writer = new Writer({ format: 'application/n-quads' });
  writer.addQuads(quads);
  const nquads = await new Promise<string>((resolve, reject) => writer.end((error, result) => (error ? reject(error) : resolve(result))));
  // Work factor 2: the default gives up on small graphs whose blank nodes look alike (nested lists).
  // jsonld's types miss the N-Quads input form of canonize.
  const canonize = jsonld.canonize as unknown as (input: string, options: object) => Promise<string>;
  return canonize(nquads, { inputFormat: 'application/n-quads', algorithm: 'RDFC-1.0', format: 'application/n-quads', canonizeOptions: { maxWorkFactor: 2 } });
}

export async function canonicalOf(text: string, type: string, baseUrl: string): Promise<string> {
  return canonical(await parseRdf(text, type, baseUrl));
}
