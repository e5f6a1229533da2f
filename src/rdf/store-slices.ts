/** Moving a large graph into and out of an n3 Store in slices, with pauses between them (see cooperative.ts). */
import { Store, type Quad } from 'n3';
import { cooperation, Pacer } from './cooperative.ts';
import { QUADS_PER_SLICE } from './turtle-writer.ts';

/** Indexing costs microseconds a quad: 130,000 of them in one go held the loop for a few hundred ms. */
export async function storeInSlices(quads: Iterable<Quad>): Promise<Store> {
  const store = new Store();
  const pacer = new Pacer(QUADS_PER_SLICE);
  for (const quad of quads) {
    store.addQuad(quad);
    if (pacer.due(1)) await cooperation.pause();
  }
  return store;
}

/** The store's quads, read out in slices too (the store builds a quad object for each). */
export async function quadsInSlices(store: Store): Promise<Quad[]> {
  const quads: Quad[] = [];
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  // @types/n3 gives readQuads the RDF/JS quad type; the store's own quads are n3's.
  for (const quad of store.readQuads(null, null, null, null) as Iterable<Quad>) {
    quads.push(quad);
    if (pacer.due(1)) await cooperation.pause();
  }
  return quads;
}
