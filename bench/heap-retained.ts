/**
 * What keeps a heap snapshot's memory alive: `node --import tsx bench/heap-retained.ts <file.heapsnapshot>
 * [--min-kb 250] [--match BoundedCache,FsDriver]`. Computes each object's retained size (what would be freed
 * with it: the bytes of everything it alone keeps reachable, from the dominator tree over strong edges) and
 * prints the largest subtrees hanging off the GC roots, each with its largest parts by the edge that holds
 * them (a module's context shows its variables, a cache its map). `--match` lists every object whose label
 * contains one of the names, with its retained size and what dominates it. Snapshots: `npm run bench:memory --
 * --snapshots` writes them into .bench/heap.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'min-kb': { type: 'string', default: '250' }, match: { type: 'string' } } });
if (positionals.length !== 1) throw new Error('usage: bench/heap-retained.ts <file.heapsnapshot> [--min-kb 250] [--match Name,Other]');
const minBytes = Number(values['min-kb']) * 1024;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}
const { snapshot, nodes, edges, strings } = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Snapshot;
const { node_fields: nodeFields, edge_fields: edgeFields, node_types: [nodeTypes], edge_types: [edgeTypes] } = snapshot.meta;
const NODE = nodeFields.length;
const EDGE = edgeFields.length;
const [TYPE, NAME, SIZE, EDGE_COUNT] = ['type', 'name', 'self_size', 'edge_count'].map((field) => nodeFields.indexOf(field)) as [number, number, number, number];
const count = nodes.length / NODE;
const firstEdge = new Uint32Array(count + 1);
for (let node = 0, edge = 0; node < count; node++) {
  firstEdge[node] = edge;
  edge += nodes[node * NODE + EDGE_COUNT]! * EDGE;
  firstEdge[node + 1] = edge;
}
// Weak references and the snapshot's shortcuts keep nothing alive.
const ignored = new Set([edgeTypes.indexOf('weak'), edgeTypes.indexOf('shortcut')]);
const target = (edge: number) => edges[edge + 2]! / NODE;
const strong = (edge: number) => !ignored.has(edges[edge]!);

// Depth-first post-order from the root (node 0).
const postIndex = new Int32Array(count).fill(-1);
const postOrder: number[] = [];
const nextEdge = new Uint32Array(count);
const reached = new Uint8Array(count);
const stack = [0];
reached[0] = 1;
nextEdge[0] = firstEdge[0]!;
while (stack.length) {
  const node = stack[stack.length - 1]!;
  let descended = false;
  while (nextEdge[node]! < firstEdge[node + 1]!) {
    const edge = nextEdge[node]!;
    nextEdge[node] = edge + EDGE;
    const to = target(edge);
    if (!strong(edge) || reached[to]) continue;
    reached[to] = 1;
    nextEdge[to] = firstEdge[to]!;
    stack.push(to);
    descended = true;
    break;
  }
  if (!descended) {
    stack.pop();
    postIndex[node] = postOrder.length;
    postOrder.push(node);
  }
}

// Predecessors, then immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm).
const predecessorStart = new Uint32Array(count + 1);
for (let node = 0; node < count; node++) if (reached[node]) for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += EDGE) if (strong(edge)) predecessorStart[target(edge) + 1]!++;
for (let node = 0; node < count; node++) predecessorStart[node + 1]! += predecessorStart[node]!;
const predecessors = new Uint32Array(predecessorStart[count]!);
const filled = predecessorStart.slice();
for (let node = 0; node < count; node++) if (reached[node]) for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += EDGE) if (strong(edge)) predecessors[filled[target(edge)]!++] = node;
const dominator = new Int32Array(count).fill(-1);
dominator[0] = 0;
const common = (a: number, b: number) => {
  while (a !== b) {
    while (postIndex[a]! < postIndex[b]!) a = dominator[a]!;
    while (postIndex[b]! < postIndex[a]!) b = dominator[b]!;
  }
  return a;
};
for (let changed = true; changed; ) {
  changed = false;
  for (let index = postOrder.length - 1; index >= 0; index--) {
    const node = postOrder[index]!;
    if (node === 0) continue;
    let found = -1;
    for (let at = predecessorStart[node]!; at < predecessorStart[node + 1]!; at++) {
      const from = predecessors[at]!;
      if (dominator[from]! >= 0) found = found < 0 ? from : common(from, found);
    }
    if (found >= 0 && dominator[node] !== found) {
      dominator[node] = found;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (const node of postOrder) {
  retained[node]! += nodes[node * NODE + SIZE]!;
  if (node !== 0) retained[dominator[node]!]! += retained[node]!;
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(2).padStart(7)} MB`;
const label = (node: number) => `${nodeTypes[nodes[node * NODE + TYPE]!]} ${String(strings[nodes[node * NODE + NAME]!]).slice(0, 60)}`;
const edgeName = (edge: number) => {
  const kind = edgeTypes[edges[edge]!];
  return kind === 'element' || kind === 'hidden' ? `[${edges[edge + 1]}]` : String(strings[edges[edge + 1]!]);
};

console.log(`${mb(retained[0]!)} reachable from the GC roots`);
const rootType = nodeTypes.indexOf('synthetic');
const tops: number[] = [];
for (let node = 1; node < count; node++) if (reached[node] && nodes[dominator[node]! * NODE + TYPE] === rootType && nodes[node * NODE + TYPE] !== rootType && retained[node]! >= minBytes) tops.push(node);
for (const node of tops.sort((a, b) => retained[b]! - retained[a]!)) {
  const parts: string[] = [];
  for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += EDGE) {
    const to = target(edge);
    if (dominator[to] === node && retained[to]! >= minBytes / 4) parts.push(`${edgeName(edge)} ${(retained[to]! / 1048576).toFixed(2)}`);
  }
  console.log(`${mb(retained[node]!)}  ${label(node)}${parts.length ? `  (${parts.slice(0, 8).join(', ')})` : ''}`);
}
if (values.match) {
  const names = values.match.split(',');
  console.log('\nmatching:');
  const matching: number[] = [];
  for (let node = 0; node < count; node++) if (reached[node] && names.some((name) => label(node).includes(name)) && retained[node]! >= 1024) matching.push(node);
  for (const node of matching.sort((a, b) => retained[b]! - retained[a]!)) console.log(`${mb(retained[node]!)}  ${label(node)}  (held by ${label(dominator[node]!)})`);
}
