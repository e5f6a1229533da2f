import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.ts';
import { checkIssuerOption, issuerNotice } from '../../src/idp/issuer.ts';

const config = (flags: Record<string, unknown>) => resolveConfig({ flags: { idp: true, ...flags } });

describe('--idp-issuer', () => {
  it('takes an origin alone and refuses one with a path, a query or credentials, in one line', () => {
    expect(() => checkIssuerOption(config({ idpIssuer: 'https://pods.example' }))).not.toThrow();
    expect(() => checkIssuerOption(config({ idpIssuer: 'https://pods.example/' }))).not.toThrow();
    for (const issuer of ['http://x.example/path', 'http://x.example/path/', 'https://x.example/?a=1', 'https://u:p@x.example/', 'ftp://x.example/']) {
      expect(() => checkIssuerOption(config({ idpIssuer: issuer }))).toThrow(`--idp-issuer ${new URL(issuer).href}: give an origin alone, such as https://pods.example (no path: the identity provider is served from the root of the host).`);
    }
  });
});

describe('the issuer line at startup', () => {
  it('gives an example on the port the server listens on', () => {
    expect(issuerNotice(config({ port: '4105' }))).toBe('idp: the issuer is the origin each request comes to (e.g. http://localhost:4105/); set --idp-issuer to fix it');
    expect(issuerNotice(config({ port: '0' }))).toBe('idp: the issuer is the origin each request comes to; set --idp-issuer to fix it');
    expect(issuerNotice(config({ baseUrl: 'https://pods.example.org' }))).toBe('idp: the issuer is the public origin https://pods.example.org/ (--base-url)');
    expect(issuerNotice(config({ idpIssuer: 'https://idp.example' }))).toBe('idp: issuer https://idp.example/ (--idp-issuer)');
  });
});
