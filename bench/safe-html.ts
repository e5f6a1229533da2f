/**
 * The sanitiser of remote HTML (src/activitypub/safe-html.ts): its first import, a typical Mastodon status,
 * and hostile shapes as large as the inbox takes (--ap-inbox-max-body-size, 256 KB by default) and at 1 MB.
 * Each figure is how long one call holds the event loop. `npm run bench:safe-html`.
 */
import { loadavg } from 'node:os';

const started = performance.now();
const { safeHtml } = await import('../src/activitypub/safe-html.ts');
const importMs = performance.now() - started;

const STATUS =
  '<p><span class="h-card" translate="no"><a href="https://mastodon.example/@bob" class="u-url mention">@<span>bob</span></a></span> see ' +
  '<a href="https://example.org/a/long/path" rel="nofollow noopener" target="_blank"><span class="invisible">https://</span><span class="ellipsis">example.org/a/long</span><span class="invisible">/path</span></a> ' +
  '<a href="https://mastodon.example/tags/pods" class="mention hashtag" rel="tag">#<span>pods</span></a></p><p>second<br>line</p>';

function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

const SHAPES: Record<string, (bytes: number) => string> = {
  'plain paragraphs': (bytes) => fill('<p>lorem ipsum dolor sit amet, consectetur adipiscing elit</p>', bytes),
  'dense links and formatting': (bytes) => fill('x<b>y</b><a href="https://a.example/" class="mention u-url">z</a> ', bytes),
  'open spans (deep nesting)': (bytes) => fill('<span>', bytes),
  'open scripts': (bytes) => fill('<script>', bytes),
  'stray <': (bytes) => fill('<', bytes),
  'quoted attributes': (bytes) => fill('<a " " " " " ">', bytes),
  'blank-filled tags': (bytes) => fill(`<a ${' '.repeat(15)}href=x>`, bytes),
  'no-break-space-filled tags': (bytes) => fill(`<a ${'\u00a0'.repeat(15)}href=x>`, bytes),
  'one long tag': (bytes) => `<a ${fill('class="mention" ', bytes)}>`,
  headings: (bytes) => fill('<h1>', bytes),
  comments: (bytes) => fill('<!-- x -->', bytes),
};

function timed(html: string): number {
  const start = performance.now();
  safeHtml(html);
  return performance.now() - start;
}

for (let index = 0; index < 200; index++) safeHtml(STATUS);
const runs = 2000;
const statusStart = performance.now();
for (let index = 0; index < runs; index++) safeHtml(STATUS);
const statusUs = ((performance.now() - statusStart) / runs) * 1000;

console.log(`load average ${loadavg()[0]!.toFixed(1)}; first import ${importMs.toFixed(1)} ms; a typical status ${statusUs.toFixed(0)} µs`);
console.log('shape'.padEnd(30), '256 KB'.padStart(9), '1 MB'.padStart(9));
for (const [name, make] of Object.entries(SHAPES)) {
  const [small, large] = [256 * 1024, 1024 * 1024].map((bytes) => {
    const html = make(bytes);
    timed(html);
    return Math.min(timed(html), timed(html));
  });
  console.log(name.padEnd(30), `${small!.toFixed(0)} ms`.padStart(9), `${large!.toFixed(0)} ms`.padStart(9));
}
