import { HttpProblem } from '../http/problem.ts';

/** Where in a document a parser stopped; both 1-based. */
export interface SourcePosition {
  line: number;
  column?: number;
}

/** Line and column of a character offset, for parsers (JSON) that report only an offset. */
export function positionOfOffset(text: string, offset: number): SourcePosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** A 400 problem for a document that does not parse, naming the position so the client can fix it. */
export function syntaxProblem(language: string, message: string, position: SourcePosition | undefined, type = 'invalid-rdf'): HttpProblem {
  const where = position ? ` (line ${position.line}${position.column ? `, column ${position.column}` : ''})` : '';
  return new HttpProblem(400, `The body is not valid ${language}${where}: ${message}`, {
    type,
    extra: position ? { line: position.line, ...(position.column ? { column: position.column } : {}) } : undefined,
  });
}

interface N3Token {
  line?: number;
  start?: number;
  end?: number;
}

/** The position an `n3` parser error carries: its line, and the column of the offending token when known. */
export function n3ErrorPosition(error: unknown): SourcePosition | undefined {
  const context = (error as { context?: { line?: number; token?: N3Token; previousToken?: N3Token } }).context;
  if (!context || typeof context.line !== 'number') return undefined;
  const token = context.token;
  if (token && token.line === context.line && typeof token.start === 'number') return { line: context.line, column: token.start + 1 };
  const previous = context.previousToken;
  if (previous && previous.line === context.line && typeof previous.end === 'number') return { line: context.line, column: previous.end + 1 };
  return { line: context.line };
}
