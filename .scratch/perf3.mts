import jsonld from 'jsonld';
import { expandedJsonLdToQuads } from '../src/rdf/jsonld-quads.ts';
const doc = { '@id': 'http://x/#r', 'http://ex/p': Array.from({ length: 40000 }, (_, i) => `v${i}`) };
const e = await jsonld.expand(doc, { base: 'http://x/' });
for (let i = 0; i < 6; i++) {
  let t = performance.now();
  expandedJsonLdToQuads(e);
  const tq = performance.now() - t; t = performance.now();
  await jsonld.expand(doc, { base: 'http://x/' });
  console.log('quads', Math.round(tq), 'expand', Math.round(performance.now() - t));
}
