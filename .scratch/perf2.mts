import jsonld from 'jsonld';
import { expandedJsonLdToQuads } from '../src/rdf/jsonld-quads.ts';
await jsonld.expand({ '@id': 'http://x/', 'http://ex/p': 1 });
for (const n of [10000, 40000, 40000, 100000]) {
  const doc = { '@id': 'http://x/#r', 'http://ex/p': Array.from({ length: n }, (_, i) => `v${i}`) };
  let t = performance.now();
  const e = await jsonld.expand(doc, { base: 'http://x/' });
  const te = performance.now() - t; t = performance.now();
  const q = expandedJsonLdToQuads(e);
  console.log(n, 'expand', Math.round(te), 'quads', Math.round(performance.now() - t));
}
