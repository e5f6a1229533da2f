/** An IRI reference `<...>` (Turtle, N3 and SPARQL IRIREF); a `<` that starts none is an operator. */
const IRI_REFERENCE = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;
const COMMENT = /#[^\n\r]*/y;

/**
 * Where a string, IRI reference or comment starting at `i` ends (the index of its last character), or `i` when
 * none starts there, so scanners of Turtle, N3 and SPARQL text can skip what their brackets may appear in.
 * A short string ends at a line break at the latest, as those languages do not let one span lines.
 */
export function endOfOpaqueToken(text: string, i: number): number {
  const char = text[i];
  if (char === '"' || char === "'") {
    const long = text.startsWith(char.repeat(3), i);
    const close = long ? char.repeat(3) : char;
    let end = i + close.length;
    while (end < text.length && !text.startsWith(close, end)) {
      if (!long && (text[end] === '\n' || text[end] === '\r')) break;
      end += text[end] === '\\' ? 2 : 1;
    }
    return end + close.length - 1;
  }
  if (char === '<') {
    IRI_REFERENCE.lastIndex = i;
    return IRI_REFERENCE.test(text) ? IRI_REFERENCE.lastIndex - 1 : i;
  }
  if (char === '#') {
    COMMENT.lastIndex = i;
    COMMENT.test(text);
    return COMMENT.lastIndex - 1;
  }
  return i;
}
