import { Parser, type Quad } from 'n3';
import { parseN3InSlices } from './cooperative.ts';
import type { RdfLimits } from './limits.ts';
import { endOfOpaqueToken } from './opaque-tokens.ts';
import type { PatchOperation } from './patch-apply.ts';

/** Updates with more operations go to the SPARQL parser: each one here re-reads the prologue. */
const MAX_DATA_OPERATIONS = 16;

const SKIP = /(?:\s|#[^\n\r]*)*/y;
const IRI = '<[^<>"{}|^`\\\\\\u0000-\\u0020]*>';
const PREFIX_DECLARATION = new RegExp(`PREFIX\\s+(?:[A-Za-z][\\w.-]*)?:\\s*${IRI}`, 'iy');
const BASE_DECLARATION = new RegExp(`BASE\\s*${IRI}`, 'iy');
const DATA_OPERATION = /(INSERT|DELETE)\s+DATA\s*\{/iy;

interface DataBlock {
  kind: 'insert' | 'delete';
  /** Prologue declarations (`PREFIX`, `BASE`) before the block, as [start, end) spans of the text. */
  declarations: [number, number][];
  start: number;
  end: number;
  /** Whether the last triple needs a `.` added, as Turtle requires and SPARQL does not. */
  open: boolean;
}

/** Where the `}` closing a DATA block starting at `start` is, and whether its last triple lacks a `.`; null when the block holds a `{` (GRAPH). */
function scanBlock(text: string, start: number): { end: number; open: boolean } | null {
  let last = '';
  for (let i = start; i < text.length; i++) {
    const char = text[i]!;
    if (char === '}') return { end: i, open: last !== '' && last !== '.' };
    if (char === '{') return null;
    if (char === '#') {
      i = endOfOpaqueToken(text, i);
      continue;
    }
    i = endOfOpaqueToken(text, i);
    if (!/\s/.test(char)) last = char;
  }
  return null;
}

/** The DATA blocks of an update made only of prologue declarations and `INSERT DATA` / `DELETE DATA`, or null. */
function dataBlocks(text: string): DataBlock[] | null {
  const blocks: DataBlock[] = [];
  const declarations: [number, number][] = [];
  let position = 0;
  const skip = () => {
    SKIP.lastIndex = position;
    SKIP.test(text);
    position = SKIP.lastIndex;
  };
  const take = (pattern: RegExp) => {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (match) position = pattern.lastIndex;
    return match;
  };
  for (skip(); position < text.length; skip()) {
    const declarationStart = position;
    if (take(PREFIX_DECLARATION) || take(BASE_DECLARATION)) {
      declarations.push([declarationStart, position]);
      continue;
    }
    const operation = take(DATA_OPERATION);
    if (!operation || blocks.length >= MAX_DATA_OPERATIONS) return null;
    const block = scanBlock(text, position);
    if (!block) return null;
    blocks.push({ kind: operation[1]!.toLowerCase() as DataBlock['kind'], declarations: [...declarations], start: position, end: block.end, open: block.open });
    position = block.end + 1;
    skip();
    if (position < text.length && !take(/;/y)) return null;
  }
  return blocks;
}

/** Text outside the kept spans becomes spaces (line breaks stay), so the parser's line and column numbers are those of the update. */
function turtleOf(text: string, block: DataBlock): string {
  const blank = (from: number, to: number) => text.slice(from, to).replace(/[^\n\r]/g, ' ');
  let turtle = '';
  let kept = 0;
  for (const [from, to] of block.declarations) {
    turtle += blank(kept, from) + text.slice(from, to);
    kept = to;
  }
  return `${turtle}${blank(kept, block.start)}${text.slice(block.start, block.end)}${block.open ? '\n.' : ''}`;
}

/**
 * Parses a SPARQL Update made only of `INSERT DATA` and `DELETE DATA` (after `PREFIX`/`BASE` declarations) with
 * n3, in slices (see cooperative.ts): the triples of a DATA block are Turtle's, apart from the optional final `.`.
 * Returns null for any other update (WHERE, GRAPH, blank nodes to delete, prefixes declared inside a block), which
 * the SPARQL parser then handles. Syntax errors are thrown as n3 reports them.
 */
export async function parseDataOnlyUpdate(text: string, targetUrl: string, limits?: RdfLimits): Promise<PatchOperation[] | null> {
  const blocks = dataBlocks(text);
  if (!blocks) return null;
  const operations: PatchOperation[] = [];
  for (const block of blocks) {
    let prefixes = 0;
    const quads: Quad[] = await parseN3InSlices(new Parser({ format: 'text/turtle', baseIRI: targetUrl }), turtleOf(text, block), () => prefixes++, limits);
    const declaredPrefixes = block.declarations.filter(([from]) => /^prefix/i.test(text.slice(from, from + 6))).length;
    if (prefixes !== declaredPrefixes) return null;
    const patterns = quads.map((q) => ({ subject: q.subject, predicate: q.predicate, object: q.object }));
    if (block.kind === 'delete' && quads.some((q) => q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode')) return null;
    operations.push(block.kind === 'insert' ? { where: [], deletes: [], inserts: patterns } : { where: [], deletes: patterns, inserts: [] });
  }
  return operations;
}
