import { describe, expect, it } from 'vitest';
import { gitAuthorization, withGitCredentials } from '../../src/git/credentials.ts';
import type { GitTarget } from '../../src/git/target.ts';

const PUSH: GitTarget = { repository: '/a/repo/', service: 'git-receive-pack', advertisement: false };

const basic = (userPass: string) => `Basic ${btoa(userPass)}`;

describe('git credentials', () => {
  it('reads the password of Basic authentication as a bearer token, whatever the username', () => {
    expect(gitAuthorization(basic('x:abc.def.ghi'))).toBe('Bearer abc.def.ghi');
    expect(gitAuthorization(basic('alice:tok:en'))).toBe('Bearer tok:en');
  });

  it('reads a password that is base64 of a JSON event as Nostr credentials', () => {
    const event = btoa(JSON.stringify({ kind: 27235 }));
    expect(gitAuthorization(basic(`git:${event}`))).toBe(`Nostr ${event}`);
    expect(gitAuthorization(basic('git:eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'))).toBe('Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln');
  });

  it('leaves other headers and unusable Basic credentials as they are', () => {
    expect(gitAuthorization(null)).toBeNull();
    expect(gitAuthorization('Bearer t')).toBe('Bearer t');
    expect(gitAuthorization(basic('user-only'))).toBe(basic('user-only'));
    expect(gitAuthorization(basic('user:'))).toBe(basic('user:'));
    expect(gitAuthorization('Basic !!!')).toBe('Basic !!!');
  });

  it('gives the authenticator a request with the mapped header and the same URL and method', () => {
    const original = new Request('http://pod.test/a/repo/git-receive-pack', { method: 'POST', headers: { authorization: basic('git:tok') }, body: 'pack' });
    const seen = withGitCredentials(original, PUSH, 'http://pod.test/a/repo/');
    expect(seen.headers.get('authorization')).toBe('Bearer tok');
    expect(seen.url).toBe(original.url);
    expect(seen.method).toBe('POST');
    expect(original.bodyUsed).toBe(false);
  });
});
