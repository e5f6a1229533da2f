/** Subdomain mode as `svc start` meets it: refusals at startup, with the usual exit code and no stack. */
import { describe, expect, it } from 'vitest';
import { localhostFetch } from '../support/localhost-hosts.ts';
import { runSvc, startSvc } from '../support/server.ts';

describe('svc start --subdomains', () => {
  it('refuses to start without --base-domain, explaining the wildcard DNS record (exit code 1, as other startup errors)', async () => {
    const result = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--subdomains']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('svc: --subdomains needs --base-domain <domain>');
    expect(result.stderr).toContain('*.pods.example.org. A 203.0.113.7');
    expect(result.stderr).not.toContain('    at ');
  });

  it('refuses --base-domain alone, and takes SVC_SUBDOMAINS and SVC_BASE_DOMAIN from the environment', async () => {
    const alone = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--base-domain', 'localhost']);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--base-domain (SVC_BASE_DOMAIN, "baseDomain") only applies to subdomain mode');
    const fromEnv = await runSvc(['start', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory'], { SVC_SUBDOMAINS: 'true', SVC_BASE_DOMAIN: 'bad domain' });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('--base-domain "bad domain" is not a domain name');
  });
});

describe('svc start --subdomains --single-user', () => {
  it('prints the pod and WebID on the pod host, and the owner token works there', async () => {
    const svc = await startSvc(['--subdomains', '--base-domain', 'localhost', '--single-user', '--quiet']);
    try {
      const me = svc.base.replace('//localhost:', '//me.localhost:');
      expect(svc.base).toMatch(/^http:\/\/localhost:\d+$/);
      expect(svc.output()).toContain(`single-user pod: ${me}/\nWebID: ${me}/#me`);
      const token = /owner token[^\n]*:\n(\S+)/.exec(svc.output())![1]!;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'text/plain' };
      expect((await localhostFetch(`${me}/private/note.txt`, { method: 'PUT', headers, body: 'mine' })).status).toBe(201);
      expect(await (await localhostFetch(`${me}/private/note.txt`, { headers })).text()).toBe('mine');
      expect((await localhostFetch(`${me}/private/note.txt`)).status).toBe(401);
    } finally {
      await svc.stop();
    }
  });
});
