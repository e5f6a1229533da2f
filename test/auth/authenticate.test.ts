import { describe, expect, it } from 'vitest';
import { authenticatorFrom, type CredentialVerifier } from '../../src/auth/authenticate.ts';

const verifier = (scheme: string, answer: Awaited<ReturnType<CredentialVerifier['verify']>>): CredentialVerifier => ({ scheme, verify: async () => answer });
const request = (authorization?: string) => new Request('http://pod.test/x', { headers: authorization ? { authorization } : {} });

describe('authenticatorFrom', () => {
  it("keeps a token's scopes on the caller, and leaves them out for unlimited credentials", async () => {
    const scoped = authenticatorFrom([verifier('bearer', { webId: 'http://pod.test/a/#me', scopes: ['read'] })]);
    expect(await scoped(request('Bearer t'))).toMatchObject({ webId: 'http://pod.test/a/#me', scopes: ['read'] });
    const unlimited = await authenticatorFrom([verifier('bearer', { webId: 'http://pod.test/a/#me' })])(request('Bearer t'));
    expect(unlimited.webId).toBe('http://pod.test/a/#me');
    expect('scopes' in unlimited).toBe(false);
  });

  it('asks the next verifier of a scheme when one answers null, and names unsupported schemes', async () => {
    const authenticate = authenticatorFrom([verifier('bearer', null), verifier('bearer', { webId: 'http://pod.test/b/#me' })]);
    expect((await authenticate(request('Bearer t'))).webId).toBe('http://pod.test/b/#me');
    expect((await authenticate(request('Basic x'))).credentialError).toMatch(/Basic authorization scheme is not supported/);
  });
});
