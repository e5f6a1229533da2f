import { describe, expect, it } from 'vitest';
import { quotaScopeOf } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';

const scopeOf = (flags: Record<string, unknown>) => quotaScopeOf(resolveConfig({ flags: { quiet: true, ...flags } }));

describe('which pod counts a storage path', () => {
  it('on a server of many pods: the first-level container; the server state and the records none', () => {
    const scope = scopeOf({ nostr: true, nostrPersist: true });
    expect(scope.podOf('/alice/notes/a.txt')).toBe('/alice/');
    expect(scope.podOf('/alice/')).toBe('/alice/');
    expect(scope.podOf('/alice/.quota.json')).toBeNull();
    expect(scope.podOf('/index.html')).toBeNull();
    expect(scope.podOf('/.server/nostr/events/e.json')).toBeNull();
    expect(scope.outsideOf('/alice/')).toEqual([]);
  });

  it('on a single-user server at /: everything but the server state, and what features keep for the owner', () => {
    const scope = scopeOf({ singleUser: true, singleUserName: '', activitypub: true, idp: true, nostr: true, nostrPersist: true });
    for (const path of ['/index.html', '/notes/a.txt', '/inbox/activitypub/x.json', '/alice/x', '/.acl']) expect(scope.podOf(path)).toBe('/');
    for (const path of ['/.server/nostr/events/e.json', '/.server/activitypub/followers/f.json', '/.server/activitypub/outbox/o.json', '/.server/mastodon/media/m.json']) {
      expect(scope.podOf(path)).toBe('/');
    }
    for (const path of ['/.quota.json', '/.server/idp/accounts/a.json', '/.server/activitypub/kv/k', '/.server/activitypub/queue/q', '/.server/oauth/apps/a.json']) {
      expect(scope.podOf(path)).toBeNull();
    }
    expect(scope.outsideOf('/')).toContain('/.server/nostr/events/');
  });

  it('on a single-user server with a named pod: that pod, and the relay archive with it', () => {
    const scope = scopeOf({ singleUser: true, singleUserName: 'me', nostr: true, nostrPersist: true });
    expect(scope.podOf('/me/x')).toBe('/me/');
    expect(scope.podOf('/.server/nostr/events/e.json')).toBe('/me/');
    expect(scope.podOf('/index.html')).toBeNull();
  });
});
