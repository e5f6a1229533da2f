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

const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Offset of the first character at which `text` stops being JSON, found by scanning it again after
 * `JSON.parse` failed: engines word that error differently, and V8's "Unexpected token" names no position.
 * Undefined when the text is valid or nested too deeply to scan.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const stop = Symbol('stop');
  const fail = (): never => {
    throw stop;
  };
  const space = () => {
    while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail();
    i++;
  };
  const string = () => {
    expect('"');
    for (let char = text[i]; char !== '"'; char = text[i]) {
      if (char === undefined || char < ' ') fail();
      if (char !== '\\') i++;
      else if (text[i + 1] === 'u') {
        i += 2;
        for (let digit = 0; digit < 4; digit++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail();
      } else if ('"\\/bfnrt'.includes(text[i + 1] ?? 'x')) i += 2;
      else (i++, fail());
    }
    i++;
  };
  const members = (close: string, member: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      member();
      space();
      if (text[i] === close) return void i++;
      expect(',');
      space();
    }
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{') {
      return members('}', () => {
        string();
        space();
        expect(':');
        value();
      });
    }
    if (char === '[') return members(']', value);
    if (char === '"') return string();
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length);
    JSON_NUMBER.lastIndex = i;
    if (!JSON_NUMBER.test(text)) fail();
    i = JSON_NUMBER.lastIndex;
  };
  try {
    value();
    space();
    return i < text.length ? i : undefined;
  } catch (error) {
    if (error === stop) return i;
    return undefined;
  }
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

/** The text of a 1-based line, found without splitting a possibly large document. */
function lineOf(text: string, line: number): string {
  let start = 0;
  for (let current = 1; current < line; current++) {
    const newline = text.indexOf('\n', start);
    if (newline === -1) return '';
    start = newline + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end === -1 ? undefined : end);
}

/**
 * The position an `n3` parser error carries: its line, and the column of the offending token. Lexer errors
 * name only the token before, so the column is where the next non-blank character after it starts.
 */
export function n3ErrorPosition(error: unknown, text: string): SourcePosition | undefined {
  const context = (error as { context?: { line?: number; token?: N3Token; previousToken?: N3Token } }).context;
  if (!context || typeof context.line !== 'number') return undefined;
  const token = context.token;
  if (token && token.line === context.line && typeof token.start === 'number') return { line: context.line, column: token.start + 1 };
  const previous = context.previousToken;
  if (previous && previous.line === context.line && typeof previous.end === 'number') {
    const line = lineOf(text, context.line);
    let column = previous.end;
    while (column < line.length && /\s/.test(line[column]!)) column++;
    return { line: context.line, column: column + 1 };
  }
  return { line: context.line };
}
