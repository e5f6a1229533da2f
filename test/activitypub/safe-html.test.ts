import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeHtml, withSafeHtml } from '../../src/activitypub/safe-html.ts';

const LINK = 'rel="nofollow noopener" target="_blank"';

describe('safeHtml (Mastodon\'s allow-list for remote HTML)', () => {
  it('keeps what Mastodon keeps: paragraphs, breaks, formatting, lists, mentions and hashtags with their classes', () => {
    const mention = '<span class="h-card" translate="no"><a href="https://m.example/@bob" class="u-url mention">@<span>bob</span></a></span>';
    expect(safeHtml(`<p>${mention} hi<br>there</p>`)).toBe(`<p><span class="h-card" translate="no"><a href="https://m.example/@bob" ${LINK} class="u-url mention">@<span>bob</span></a></span> hi<br>there</p>`);
    expect(safeHtml('<a href="https://m.example/tags/pods" class="mention hashtag" rel="tag">#<span>pods</span></a>')).toBe(`<a href="https://m.example/tags/pods" ${LINK} class="mention hashtag">#<span>pods</span></a>`);
    expect(safeHtml('<a href="https://example.org/a/very/long/path"><span class="invisible">https://</span><span class="ellipsis">example.org/a/very</span><span class="invisible">/long/path</span></a>')).toBe(
      `<a href="https://example.org/a/very/long/path" ${LINK}><span class="invisible">https://</span><span class="ellipsis">example.org/a/very</span><span class="invisible">/long/path</span></a>`,
    );
    const formatting = '<p><b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><del>d</del><s>s</s><code>c</code></p><pre>p</pre><blockquote>q</blockquote><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>';
    expect(safeHtml(formatting)).toBe(formatting);
    expect(safeHtml('<ol start="3" reversed><li value="5">x</li></ol><ul><li>y</li></ul>')).toBe('<ol start="3" reversed><li value="5">x</li></ol><ul><li>y</li></ul>');
    expect(safeHtml('<p>1 &lt; 2 &amp; 3 &gt; 2</p>')).toBe('<p>1 &lt; 2 &amp; 3 &gt; 2</p>');
  });

  it('drops scripts, styles and embedded documents with what they hold, and every other element but its text', () => {
    expect(safeHtml('<p>a<script>alert(1)</script>b<style>p{}</style>c</p>')).toBe('<p>abc</p>');
    expect(safeHtml('<p>a<img src=x onerror=alert(1)>b<video src=x></video>c</p>')).toBe('<p>abc</p>');
    expect(safeHtml('<svg onload=alert(1)><script>alert(2)</script></svg>x<math><mi>y</mi></math>z')).toBe('xz');
    expect(safeHtml('<iframe src="https://evil.example">inside</iframe><template><p>t</p></template><noscript>n</noscript>ok')).toBe('ok');
    expect(safeHtml('<div><table><tr><td>cell</td></tr></table></div><form action=x><button>go</button></form>')).toBe('cellgo');
    expect(safeHtml('a<!-- comment -->b<!-- unclosed')).toBe('ab');
    // An element left open holds everything after it, as the browser would read it.
    expect(safeHtml('<p>kept</p><xmp><p title="</xmp><img src=x onerror=alert(1)>">')).toBe('<p>kept</p>');
  });

  it('keeps only its attributes: no handlers, styles or ids; classes and translate as Mastodon keeps them', () => {
    expect(safeHtml('<p onclick="alert(1)" style="color:red" id="x" class="foo p-name bar">t</p>')).toBe('<p class="p-name">t</p>');
    expect(safeHtml('<span class="quote-inline nope" translate="yes">t</span>')).toBe('<span class="quote-inline">t</span>');
    expect(safeHtml('<b class="mention" translate="no" href="https://x.example">t</b>')).toBe('<b>t</b>');
    expect(safeHtml('<a href="https://ok.example" title="t" target="_self" rel="me" data-x="1">ok</a>')).toBe(`<a href="https://ok.example" ${LINK}>ok</a>`);
    expect(safeHtml('<p title="</p><img src=x onerror=alert(1)>">q</p>')).toBe('<p>q</p>');
  });

  it('links only what Mastodon links: web and a few other schemes, and relative references', () => {
    for (const href of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'jav&#x61;script:alert(1)', 'javascript&colon;alert(1)', 'java&Tab;script:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', 'file:///etc/passwd']) {
      expect(safeHtml(`<a href="${href}">x</a>`), href).toBe('<a>x</a>');
    }
    for (const href of ['https://a.example/x?y=1&z=2', 'http://a.example', 'gemini://a.example', 'ipfs://cid', 'magnet:?xt=urn:btih:x', 'xmpp:a@b.example', '/relative/path', '#fragment', 'path/with:colon']) {
      expect(safeHtml(`<a href="${href}">x</a>`), href).toBe(`<a href="${href}" ${LINK}>x</a>`);
    }
  });

  it('shows headings as a paragraph in bold', () => {
    expect(safeHtml('<h1>Title</h1><h3>Sub</h3>')).toBe('<p><strong>Title</strong></p><p><strong>Sub</strong></p>');
  });

  it('drops a tag longer or blanker than any real one, keeping its text', () => {
    expect(safeHtml(`<a ${'c '.repeat(20)}href="https://x.example">text</a>`)).toBe('text</a>');
    expect(safeHtml(`<a${'\u00a0'.repeat(20)}href="https://x.example">text</a>`)).toBe('text</a>');
    const mastodonLink = '<a href="https://m.example/@bob" class="u-url mention" rel="nofollow noopener noreferrer" target="_blank" translate="no">@bob</a>';
    expect(safeHtml(mastodonLink)).toBe(`<a href="https://m.example/@bob" ${LINK} class="u-url mention" translate="no">@bob</a>`);
    expect(safeHtml(`<a href="https://x.example/${'a'.repeat(9000)}">text</a>`)).toBe('text</a>');
  });

  it('changes nothing more the second time', () => {
    const tag = fc.constantFrom('p', 'a', 'span', 'b', 'script', 'style', 'img', 'svg', 'h2', 'ol', 'li', 'xmp', 'iframe', 'div');
    const attribute = fc.constantFrom(' href="https://x.example"', ' href="javascript:x"', ' class="mention u-url foo"', ' onclick="x"', ' translate="no"', ' title="a>b"', " rel='tag'", ' start=2', '');
    const piece = fc.oneof(
      fc.tuple(tag, attribute).map(([name, attr]) => `<${name}${attr}>`),
      tag.map((name) => `</${name}>`),
      fc.constantFrom('text', '&amp;', '&lt;', '<', '>', '"', "'", '<!--', '-->', ' ', '\n'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const once = safeHtml(pieces.join(''));
        expect(safeHtml(once)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});

describe('withSafeHtml', () => {
  it('makes content, summary and their language maps safe, and leaves the rest', () => {
    const object = { id: 'https://r.example/n/1', type: 'Note', name: 'a <b>name</b>', content: '<p>x<script>1</script></p>', summary: '<img onerror=1>cw', contentMap: { en: '<p>y<script>2</script></p>' }, summaryMap: { en: '<b>s</b><style></style>' } };
    expect(withSafeHtml(object)).toEqual({ ...object, content: '<p>x</p>', summary: 'cw', contentMap: { en: '<p>y</p>' }, summaryMap: { en: '<b>s</b>' } });
  });
});
