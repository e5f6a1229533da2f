/** Remote HTML that every runtime must make safe the same way (test/runtimes/workers-safe-html.test.ts, deno-bun.test.ts). */
export const SAFE_HTML_INPUTS = [
  '<p><span class="h-card"><a href="https://m.example/@bob" class="u-url mention">@<span>bob</span></a></span> hi</p>',
  '<p>x<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">y</a></p>',
  '<h2>t</h2><svg><style>*{}</style></svg><ol start="2"><li>z</li></ol>',
  '<a href="jav&#x61;script:alert(1)" class="mention hashtag" rel="tag">#<span>t</span></a><p title="</p><img src=x onerror=alert(1)>">q</p>',
];
