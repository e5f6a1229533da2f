/**
 * What a browser makes of safeHtml's output: Chromium parses it (innerHTML, as Mastodon clients insert a
 * status's content) and the DOM may hold only the allowed elements and attributes, links only with the
 * allowed schemes, and nothing may run. Without chromium the test is skipped, except in CI (CI=true).
 */
import fc from 'fast-check';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { safeHtml } from '../../src/activitypub/safe-html.ts';

const ALLOWED: Record<string, string[]> = {
  p: ['class'], br: [], span: ['class', 'translate'], a: ['href', 'rel', 'class', 'translate', 'target'], del: [], s: [], pre: [], blockquote: [], code: [],
  b: [], strong: [], u: [], i: [], em: [], ul: [], ol: ['start', 'reversed'], li: ['value'], ruby: [], rt: [], rp: [],
};
const SCHEMES = ['http:', 'https:', 'dat:', 'dweb:', 'ipfs:', 'ipns:', 'ssb:', 'gopher:', 'xmpp:', 'magnet:', 'gemini:'];

/** Known ways to run script from HTML, each calling `alert`. */
const VECTORS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<img src="x" onerror="alert(1)"/>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<body onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href=javascript:alert(1)>x</a>',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href="&#x6A;&#x61;vascript:alert(1)">x</a>',
  '<a href="java&#x09;script:alert(1)">x</a>',
  '<a href="java&Tab;script:alert(1)">x</a>',
  '<a href="javascript&colon;alert(1)">x</a>',
  '<a href=" &#14;  javascript:alert(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<a href="vbscript:alert(1)">x</a>',
  '<a href="https://ok.example" onmouseover="alert(1)" style="position:fixed;inset:0">x</a>',
  '<p title="</p><img src=x onerror=alert(1)>">x</p>',
  '<p title=\'"><img src=x onerror=alert(1)>\'>x</p>',
  '<xmp><p title="</xmp><img src=x onerror=alert(1)>">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<textarea><img src=x onerror=alert(1)></textarea>',
  '<title><img src=x onerror=alert(1)></title>',
  '<style><img src=x onerror=alert(1)></style>',
  '<!--<img src=x onerror=alert(1)>-->',
  '<!-- --!><img src=x onerror=alert(1)>-->',
  '<![CDATA[<img src=x onerror=alert(1)>]]>',
  '<scr<script>ipt>alert(1)</script>',
  '<<script>script>alert(1)<</script>/script>',
  '<img/src=x/onerror=alert(1)>',
  '<img src=x onerror\n=alert(1)>',
  '<IMG SRC=x ONERROR=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<input autofocus onfocus=alert(1)>',
  '<form><button formaction="javascript:alert(1)">x</button></form>',
  '<object data="javascript:alert(1)">',
  '<embed src="javascript:alert(1)">',
  '<base href="javascript:alert(1)//"><a href="/x">x</a>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel=import href="data:text/html,<script>alert(1)</script>">',
  '<p><span class="h-card"><a href="https://m.example/@bob" class="u-url mention" onclick="alert(1)">@<span>bob</span></a></span></p>',
  '<ol start="1" onclick=alert(1)><li value="1" onmouseover=alert(1)>x</li></ol>',
  '<h1 onclick=alert(1)>x</h1>',
  '<template><img src=x onerror=alert(1)></template>',
  '<select><template><img src=x onerror=alert(1)></template></select>',
  '<span class="mention" translate="no" style="background:url(javascript:alert(1))">x</span>',
];

describe.skipIf(!hasChromium)('safeHtml in a browser', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    await page.setContent('<!doctype html><div id="host"></div>');
    await page.evaluate(() => {
      (window as unknown as { ran: number }).ran = 0;
      window.alert = () => void ((window as unknown as { ran: number }).ran += 1);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** What the DOM holds after inserting each output that is not allowed; empty when all is well. */
  async function findings(outputs: string[]): Promise<string[]> {
    return page.evaluate(
      async ({ outputs, allowed, schemes }) => {
        const host = document.getElementById('host')!;
        const found: string[] = [];
        for (const html of outputs) {
          host.innerHTML = html;
          for (const element of host.querySelectorAll('*')) {
            const name = element.localName;
            const attributes = allowed[name];
            if (!attributes || element.namespaceURI !== 'http://www.w3.org/1999/xhtml') {
              found.push(`${name} in ${html}`);
              continue;
            }
            for (const attribute of element.getAttributeNames()) if (!attributes.includes(attribute)) found.push(`${name}[${attribute}] in ${html}`);
            const href = element.getAttribute('href');
            if (href !== null && !schemes.includes(new URL(href, 'https://pod.example/').protocol)) found.push(`href ${href} in ${html}`);
          }
          for (const link of host.querySelectorAll('a[href]')) (link as HTMLAnchorElement).click();
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        host.innerHTML = '';
        return found;
      },
      { outputs, allowed: ALLOWED, schemes: SCHEMES },
    );
  }

  it('keeps only allowed elements, attributes and link schemes from known attacks, and runs nothing', async () => {
    expect(await findings(VECTORS.map(safeHtml))).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { ran: number }).ran)).toBe(0);
  }, 60_000);

  it('does the same for random mixtures of tags, attributes, quotes and comments', async () => {
    const tag = fc.constantFrom('p', 'a', 'span', 'b', 'script', 'style', 'img', 'svg', 'math', 'h2', 'ol', 'li', 'xmp', 'iframe', 'textarea', 'title', 'noscript', 'select', 'template', 'table', 'form');
    const attribute = fc.constantFrom(' href="javascript:alert(1)"', ' href=javascript:alert(1)', ' href="https://x.example"', ' class="mention u-url x"', ' onerror=alert(1)', ' onload="alert(1)"', ' src=x', ' title="a>b"', " title='</p><img src=x onerror=alert(1)>'", ' style="x"', '/', '');
    const piece = fc.oneof(
      fc.tuple(tag, attribute, attribute).map(([name, first, second]) => `<${name}${first}${second}>`),
      tag.map((name) => `</${name}>`),
      fc.constantFrom('text', '&lt;', '&amp;', '<', '>', '"', "'", '=', '<!--', '-->', '--!>', ' ', '\n', '&#106;', 'javascript:alert(1)'),
    );
    const samples = fc.sample(fc.array(piece, { maxLength: 25 }), { numRuns: 400, seed: 29 }).map((pieces) => pieces.join(''));
    expect(await findings(samples.map(safeHtml))).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { ran: number }).ran)).toBe(0);
  }, 60_000);
});
