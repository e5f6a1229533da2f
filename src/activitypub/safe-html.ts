/**
 * HTML from other servers, kept the way Mastodon keeps it (its `Sanitize::Config::MASTODON_STRICT`): an
 * allow-list of elements and attributes, links only to the schemes Mastodon links, the microformat,
 * mention and hashtag classes, and `rel="nofollow noopener"` `target="_blank"` on every link. Everything
 * else goes; `script`, `style` and the like go with their content. The work is done by the `xss` library
 * (pure JavaScript, no DOM, on every runtime); see docs/decisions.md for why this one.
 */
import xss from 'xss';

// The module object itself: Node's ESM does not see the helpers the package adds to its exports in a loop
// as named exports, and the package's types give the default export the filter function's type only.
const { FilterXSS, escapeAttrValue, friendlyAttrValue } = xss as unknown as typeof import('xss');

const ATTRIBUTES: Record<string, string[]> = {
  p: ['class'],
  br: [],
  span: ['class', 'translate'],
  a: ['href', 'rel', 'class', 'translate'],
  del: [],
  s: [],
  pre: [],
  blockquote: [],
  code: [],
  b: [],
  strong: [],
  u: [],
  i: [],
  em: [],
  ul: [],
  ol: ['start', 'reversed'],
  li: ['value'],
  ruby: [],
  rt: [],
  rp: [],
};

/** Headings become a paragraph in bold, as Mastodon shows them. */
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** The schemes a link may have (Mastodon's LINK_PROTOCOLS); a relative link is kept too. */
const LINK_SCHEMES = new Set(['http', 'https', 'dat', 'dweb', 'ipfs', 'ipns', 'ssb', 'gopher', 'xmpp', 'magnet', 'gemini']);

/** Classes kept: microformats (`h-card`, `u-url`), mentions and hashtags, and how Mastodon shortens links. */
const KEPT_CLASS = /^(?:(?:h|p|u|dt|e)-[\w-]+|mention|hashtag|ellipsis|invisible|quote-inline)$/;

/** Elements dropped with all they contain (Sanitize's `remove_contents`, and `template`). */
const DROPPED_WITH_CONTENT = new Set(['script', 'style', 'template', 'iframe', 'math', 'svg', 'noembed', 'noframes', 'noscript', 'plaintext', 'xmp', 'textarea', 'title', 'object']);

const LINK_ATTRIBUTES = 'rel="nofollow noopener" target="_blank"';

/**
 * The library's attribute parser rescans a tag at each blank in it, so a tag's cost grows with its length
 * times its blanks: a tag longer or blanker than any real one (a Mastodon link has a handful of attributes)
 * is dropped whole, its text kept, which keeps the work linear in the input.
 */
const MAX_TAG_LENGTH = 8 * 1024;
const MAX_TAG_BLANKS = 16;

function isOversized(tagHtml: string): boolean {
  if (tagHtml.length > MAX_TAG_LENGTH) return true;
  // Blanks as the library counts them (`\s`: no-break and other Unicode spaces too).
  const blank = /\s/g;
  let blanks = 0;
  while (blank.exec(tagHtml) !== null) if (++blanks > MAX_TAG_BLANKS) return true;
  return false;
}

/**
 * An attribute value closer to what the browser reads: numeric entities, `&quot;`, `&colon;` and
 * `&newline;` decoded, control characters made spaces. Other named entities stay as they are; none of them
 * stands for a character a scheme is made of.
 */
function decoded(value: string): string {
  return friendlyAttrValue(value);
}

/** True for an `href` Mastodon would link: a relative reference, or one of LINK_SCHEMES. */
function isLinkable(href: string): boolean {
  // The URL parser drops tabs and new lines anywhere and leading spaces; the scheme ends at the first ':'
  // that comes before any '/', '?' or '#'.
  const text = href.replace(/[\t\n\r]/g, '').trimStart();
  const end = text.search(/[:/?#]/);
  if (end === -1 || text[end] !== ':') return true;
  return LINK_SCHEMES.has(text.slice(0, end).toLowerCase());
}

/** An allowed attribute as it is kept; undefined leaves it to the library (escaped as it is). */
function attribute(tag: string, name: string, value: string, allowed: boolean): string | undefined {
  if (!allowed) return undefined;
  if (name === 'class') {
    const kept = decoded(value).split(/\s+/).filter((token) => KEPT_CLASS.test(token));
    return kept.length > 0 ? `class="${escapeAttrValue(kept.join(' '))}"` : '';
  }
  if (name === 'translate') return decoded(value) === 'no' ? 'translate="no"' : '';
  if (tag === 'a' && name === 'rel') return '';
  if (tag === 'a' && name === 'href') {
    const href = decoded(value);
    return isLinkable(href) ? `href="${escapeAttrValue(href)}" ${LINK_ATTRIBUTES}` : '';
  }
  return undefined;
}

/** Remote (or any untrusted) HTML as it may be stored and served. */
export function safeHtml(html: string): string {
  // What the dropped elements held, as [start, end) of the output; one left open runs to the end.
  const dropped: [number, number][] = [];
  let depth = 0;
  let start = 0;
  const filter = new FilterXSS({
    whiteList: ATTRIBUTES,
    allowCommentTag: false,
    css: false,
    onTag(tag, tagHtml, options) {
      if (HEADINGS.has(tag)) return options.isClosing ? '</strong></p>' : '<p><strong>';
      return isOversized(tagHtml) ? '' : undefined;
    },
    onTagAttr: attribute,
    onIgnoreTag(tag, _html, options) {
      if (DROPPED_WITH_CONTENT.has(tag)) {
        const position = options.position ?? 0;
        if (!options.isClosing && depth++ === 0) start = position;
        else if (options.isClosing && depth > 0 && --depth === 0) dropped.push([start, position]);
      }
      return '';
    },
  });
  const output = filter.process(html);
  if (depth > 0) dropped.push([start, output.length]);
  let kept = '';
  let from = 0;
  for (const [begin, end] of dropped) {
    kept += output.slice(from, begin);
    from = end;
  }
  return kept + output.slice(from);
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The HTML properties of an ActivityStreams object (`content`, `summary`) and their language maps, made safe. */
export function withSafeHtml(object: Json): Json {
  const safe: Json = { ...object };
  for (const name of ['content', 'summary']) {
    const value = safe[name];
    if (typeof value === 'string') safe[name] = safeHtml(value);
    const map = safe[`${name}Map`];
    if (isObject(map)) safe[`${name}Map`] = Object.fromEntries(Object.entries(map).map(([language, text]) => [language, typeof text === 'string' ? safeHtml(text) : '']));
  }
  return safe;
}
