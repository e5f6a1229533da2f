/**
 * The small browser app of test/idp/browser.test.ts: logs in with @inrupt/solid-client-authn-browser
 * (dynamic registration, authorization code with PKCE, DPoP) and reads one private resource.
 * ISSUER and RESOURCE are filled in when the test bundles it.
 */
import { fetch, getDefaultSession, handleIncomingRedirect, login } from '@inrupt/solid-client-authn-browser';

declare const ISSUER: string;
declare const RESOURCE: string;

const status = document.getElementById('status')!;

async function main(): Promise<void> {
  const info = await handleIncomingRedirect();
  if (!info?.isLoggedIn) {
    status.textContent = 'logged out';
    document.getElementById('login')!.addEventListener('click', () => {
      void login({ oidcIssuer: ISSUER, redirectUrl: location.origin + location.pathname, clientName: 'Browser test app' });
    });
    return;
  }
  const response = await fetch(RESOURCE);
  document.getElementById('webid')!.textContent = getDefaultSession().info.webId ?? '';
  document.getElementById('result')!.textContent = `${response.status} ${await response.text()}`;
  status.textContent = 'logged in';
}

main().catch((error: unknown) => {
  status.textContent = `error: ${error instanceof Error ? error.message : String(error)}`;
});
