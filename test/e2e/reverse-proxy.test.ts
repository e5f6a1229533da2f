import { describe, expect, it } from 'vitest';
import { startSvc } from '../support/server.ts';

describe('svc start --base-url behind a reverse proxy (real process)', () => {
  it('prints the public URL, answers forwarded requests as that origin and others with 421', async () => {
    const server = await startSvc(['-q', '--base-url', 'https://pods.example.org', '--trust-proxy', '--single-user']);
    try {
      const bound = /svc listening on https:\/\/pods\.example\.org\/ \(bound to (http:\/\/127\.0\.0\.1:\d+)\//.exec(server.output())?.[1];
      expect(bound).toBeDefined();
      expect(server.output()).toContain('single-user pod: https://pods.example.org/me/\nWebID: https://pods.example.org/me/#me\n');
      const forwarded = { 'x-forwarded-host': 'pods.example.org', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.5' };
      const profile = await fetch(`${bound}/me/`, { headers: forwarded });
      expect(profile.status).toBe(200);
      expect(profile.headers.get('link')).toContain('<https://pods.example.org/me/.acl>; rel="acl"');
      const direct = await fetch(`${bound}/me/`);
      expect(direct.status).toBe(421);
      expect(direct.headers.get('content-type')).toBe('application/problem+json');
    } finally {
      await server.stop();
    }
  });
});
