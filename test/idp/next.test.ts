import { describe, expect, it } from 'vitest';
import { afterLogin } from '../../src/idp/authorize.ts';
import { cookiesFrom, form, hiddenField, idpApp, PASSWORD } from './support.ts';

describe('the login returns to the identity provider page that asked for it (next)', () => {
  it('password login: to next when it is a page under /idp/, else to the account page', async () => {
    const app = await idpApp();
    const login = await app.request('/idp/auth');
    const cookies = cookiesFrom(login);
    const csrf = hiddenField(await login.text(), 'csrf');
    const cases: [string, string][] = [
      ['/idp/oauth/authorize?client_id=abc&scope=read', '/idp/oauth/authorize?client_id=abc&scope=read'],
      ['https://evil.example/idp/', '/idp/account'],
      ['//evil.example/idp/', '/idp/account'],
      ['/idp/\\evil.example', '/idp/account'],
      ['/alice/private/', '/idp/account'],
    ];
    for (const [next, expected] of cases) {
      const answer = await app.request('/idp/auth', form({ csrf, next, email: 'alice@example.org', password: PASSWORD }, { cookie: cookies }));
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toBe(expected);
    }
  });

  it('passkey and Nostr logins share the rule: next, then the Solid-OIDC request, then the account page', () => {
    expect(afterLogin({ next: '/idp/oauth/authorize?x=1', client_id: 'c' })).toBe('/idp/oauth/authorize?x=1');
    expect(afterLogin({ next: 'https://evil.example/', client_id: 'c', response_type: 'code' })).toBe('/idp/auth?response_type=code&client_id=c');
    expect(afterLogin({ csrf: 'x' })).toBe('/idp/account');
  });
});
