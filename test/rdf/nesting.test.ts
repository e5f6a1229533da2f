import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { graphNesting, syntaxNesting } from '../../src/rdf/nesting.ts';
import { jsonDepth } from '../../src/http/nesting.ts';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const nestedList = (depth: number) => `${'('.repeat(depth)}"x"${')'.repeat(depth)}`;
const nestedBlank = (depth: number) => `${'[ <p> '.repeat(depth)}"x"${' ]'.repeat(depth)}`;

describe('syntax nesting', () => {
  it.each([
    ['<#a> <p> "x" .', 0],
    ['<#a> <p> ( 1 ( 2 ) [ <q> ( 3 ) ] ) .', 3],
    ['<#a> <p> "((((" , \'[[[[\' , """{{{{\n((((""" , \'\'\'(((\'\'\' .', 0],
    ['<#a> <p> "a \\" (((" .', 0],
    ['<http://ex/((((> <p> <#x> . # ((((\n', 0],
    ['DELETE WHERE { ?x ?y ?z FILTER(?z <((( ?y) }', 5],
    ['ex:a\\#(( <p> 1 .', 2],
  ])('%s nests %i', (text, depth) => {
    expect(syntaxNesting(text)).toBe(depth);
  });

  it('stops counting past the limit', () => {
    expect(syntaxNesting('{'.repeat(100_000), 10)).toBe(11);
  });
});

describe('graph nesting', () => {
  const depthOf = async (turtle: string) => graphNesting(await parseRdf(turtle, 'text/turtle', 'http://x/'));

  it('counts lists inside lists, not the length of a list nor blank nodes', async () => {
    expect(await depthOf('<#a> <p> <#b> .')).toBe(0);
    expect(await depthOf(`<#a> <p> ( ${Array.from({ length: 500 }, (_, i) => i).join(' ')} ) .`)).toBe(1);
    expect(await depthOf(`<#a> <p> ${nestedList(50)} .`)).toBe(50);
    expect(await depthOf(`<#a> <p> ( 1 ${nestedList(3)} ( 2 ) ) .`)).toBe(4);
    expect(await depthOf(`<#a> <p> ${nestedBlank(30)} .`)).toBe(0);
    expect(await depthOf(`<#a> <p> ( [ <q> ${nestedList(5)} ] ) .`)).toBe(5);
  });

  it('ends on a list that contains itself', async () => {
    expect(await graphNesting(new Parser().parse(`_:l <${RDF}first> _:l . _:l <${RDF}rest> <${RDF}nil> .`))).toBe(2);
  });

  it('walks a deep nesting without recursion', async () => {
    const lists = Array.from({ length: 50_000 }, (_, i) => `_:l${i} <${RDF}first> _:l${i + 1} . _:l${i} <${RDF}rest> <${RDF}nil> .`).join('\n');
    expect(await graphNesting(new Parser().parse(`${lists}\n_:l50000 <${RDF}first> 1 . _:l50000 <${RDF}rest> <${RDF}nil> .`))).toBe(50_001);
  });
});

describe('JSON depth', () => {
  it('counts arrays and objects', () => {
    expect(jsonDepth('x')).toBe(0);
    expect(jsonDepth({ a: [1, { b: [] }] })).toBe(4);
    expect(jsonDepth(JSON.parse('['.repeat(5000) + ']'.repeat(5000)), 100)).toBe(101);
  });
});
