import { describe, expect, it } from 'vitest';
import { requestOrigin, requestPath } from '../../src/http/request-origin.ts';

const URLS = [
  'http://pod.test/',
  'http://pod.test/alice/doc',
  'https://pod.test:8443/alice/a%20b/c%2Fd?x=1#y',
  'http://pod.test/alice//double/?q=/./..',
  "http://pod.test/alice/!$&'()*+,;=:@[]~_-/x",
  'http://127.0.0.1:3000/alice/file.ttl?a#b',
  // Not serialized, as the Node adapter may hand them on: parsing changes these, so they are left to it.
  'http://pod.test/alice/../root',
  'http://pod.test/alice/..#frag',
  'http://pod.test/alice/./doc',
  'http://pod.test/alice/doc#frag?x',
  'http://pod.test/alice/.acl',
  'http://pod.test',
];

describe('the path of a Request URL taken without parsing it', () => {
  it('is what URL parsing gives wherever it answers, and it answers for plain paths', () => {
    for (const url of URLS) {
      const path = requestPath(url);
      if (path !== null) expect(path, url).toBe(new URL(url).pathname);
    }
    expect(URLS.slice(0, 6).map(requestPath)).toEqual(URLS.slice(0, 6).map((url) => new URL(url).pathname));
  });

  it('is left to parsing where a dot segment, a dot name or a fragment could change it', () => {
    expect(URLS.slice(6).map(requestPath)).toEqual([null, null, null, null, null, null]);
  });

  it('comes with an origin that is the URL\'s', () => {
    for (const url of URLS.slice(0, 6)) expect(requestOrigin(url)).toBe(new URL(url).origin);
  });
});
