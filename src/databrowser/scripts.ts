/** The server's own small scripts and styles around the data browser, served under `/.databrowser/`. */
import { CALLBACK_PATH, CLIENT_ID_PATH } from './client.ts';

/** Where the page a login started from waits in sessionStorage (this origin, this tab) for the callback. */
const RETURN_KEY = 'svc-databrowser-return';

/**
 * Shared by the start and callback scripts: the data browser's Solid-OIDC session (solid-logic's, in
 * mashlib), this host's first-party client, and whether an issuer is this server's own (`data-issuer` of the
 * script tag, set with --idp).
 */
const COMMON = `const script = document.currentScript;
const ownIssuer = script.dataset.issuer || '';
const session = window.SolidLogic && window.SolidLogic.authSession;
const clientId = location.origin + ${JSON.stringify(CLIENT_ID_PATH)};
const callback = location.origin + ${JSON.stringify(CALLBACK_PATH)};
const originOf = (url) => { try { return new URL(url).origin; } catch { return null; } };
const isOwn = (issuer) => Boolean(ownIssuer) && (originOf(issuer) === originOf(ownIssuer) || originOf(issuer) === location.origin);
`;

/**
 * Starts mashlib once the page is parsed (deferred scripts run before DOMContentLoaded). Every login of the
 * data browser (its header's, the UI shell's, the notice of a private page) comes back to the server's
 * callback page, not to the resource's URL, where a stored page could be: the page to return to waits in
 * sessionStorage. With this server's issuer the data browser is its first-party client (`<origin>/.databrowser/id`);
 * other issuers register it as they do any app. The notice of a page answered 401 or 403 offers the login
 * and goes away once the data browser has a session.
 */
export const START_SCRIPT = `(() => {
${COMMON}if (session && typeof session.login === 'function') {
  const login = session.login.bind(session);
  session.login = (options, redirect) => {
    const named = options && typeof options === 'object';
    const issuer = named ? options.oidcIssuer || options.idp || options.issuer : options;
    const back = (named ? options.redirectUrl || options.redirect_uri || options.redirectUri : redirect) || location.href;
    sessionStorage.setItem(${JSON.stringify(RETURN_KEY)}, back);
    session.information.clientDetails = isOwn(issuer) ? { client_id: clientId } : undefined;
    return login(issuer, callback);
  };
}
const notice = document.getElementById('svc-login-needed');
if (notice && session) {
  const button = document.getElementById('svc-login');
  if (button) button.addEventListener('click', () => session.login({ oidcIssuer: ownIssuer, redirectUrl: location.href }).catch((error) => {
    document.getElementById('svc-login-status').textContent = 'The login could not start: ' + error.message;
  }));
  const settle = () => { if (session.isActive || session.webId) notice.hidden = true; };
  if (typeof session.addEventListener === 'function') session.addEventListener('sessionStateChange', settle);
  if (session.events) for (const name of ['login', 'sessionRestore']) session.events.on(name, settle);
  window.addEventListener('load', settle);
}
document.addEventListener('DOMContentLoaded', () => panes.runDataBrowser());
})();
`;

/**
 * The callback page: mashlib's session takes the code (it checks the state and issuer it kept in this tab,
 * uses its PKCE verifier and makes its DPoP key), the address bar loses the code at once (the history entry
 * is replaced, not added), and the browser goes back to the page the login started from, on this host only.
 */
export const CALLBACK_SCRIPT = `(async () => {
${COMMON}const status = document.getElementById('svc-callback-status');
const backLink = document.getElementById('svc-callback-back');
const stored = sessionStorage.getItem(${JSON.stringify(RETURN_KEY)});
const back = stored && originOf(stored) === location.origin ? stored : location.origin + '/';
backLink.href = back;
const answer = new URL(location.href).searchParams;
const fail = (text) => {
  history.replaceState(null, '', location.pathname);
  document.title = document.querySelector('h1').textContent = 'The login did not finish';
  status.textContent = text;
  status.className = 'status error';
  status.setAttribute('role', 'alert');
  backLink.hidden = false;
};
if (answer.get('error')) {
  fail(answer.get('error') === 'access_denied' ? 'You did not allow the data browser to log in: you are not logged in.' : 'The identity provider refused the login: ' + (answer.get('error_description') || answer.get('error')));
  return;
}
if (!session || !answer.get('code')) {
  fail('This page finishes a login of the data browser; it was opened without one.');
  return;
}
if (isOwn(sessionStorage.getItem('idp'))) session.information.clientDetails = { client_id: clientId };
// mashlib takes the code out of the address bar with pushState: replace the entry instead, so Back never shows it.
const push = history.pushState;
history.pushState = history.replaceState;
let done;
try {
  done = session.handleRedirectFromLogin();
} finally {
  history.pushState = push;
}
try {
  await done;
} catch (error) {
  fail('The login could not be finished: ' + error.message);
  return;
}
if (!(session.isActive || session.webId)) {
  fail('The login could not be finished. Go back and log in again.');
  return;
}
sessionStorage.removeItem(${JSON.stringify(RETURN_KEY)});
location.replace(back);
})();
`;

/**
 * The UI shell: the current resource's URL, links home and one level up, and, with the built-in IdP,
 * login and logout through the data browser's own Solid-OIDC session (the server is the issuer).
 */
export const SHELL_SCRIPT = `(() => {
  const idp = document.currentScript.dataset.idp === 'true';
  const issuer = document.currentScript.dataset.issuer || location.origin + '/';
  const page = new URL(location.href);
  page.hash = '';
  document.getElementById('svc-shell-url').textContent = page.href;
  const up = document.getElementById('svc-shell-up');
  if (page.pathname === '/') up.hidden = true;
  else up.href = new URL(page.pathname.endsWith('/') ? '..' : '.', page).href;
  if (!idp) return;
  const login = document.getElementById('svc-shell-login');
  const logout = document.getElementById('svc-shell-logout');
  const user = document.getElementById('svc-shell-user');
  const session = () => (window.SolidLogic && window.SolidLogic.authSession) || (window.UI && window.UI.authn && window.UI.authn.authSession);
  const show = () => {
    const current = session();
    const webId = current && (current.webId || (current.info && current.info.webId));
    login.hidden = Boolean(webId);
    logout.hidden = !webId;
    user.textContent = webId || '';
  };
  login.onclick = () => session().login({ oidcIssuer: issuer, redirectUrl: page.href });
  logout.onclick = () => session().logout().then(() => location.reload());
  window.addEventListener('load', () => {
    show();
    const events = session() && session().events;
    if (events) for (const name of ['login', 'logout', 'sessionRestore']) events.on(name, show);
  });
})();
`;

/** A bar at the bottom of the window: mashlib's own header holds the top. */
export const SHELL_STYLE = `body { padding-bottom: 2.6em; }
#svc-shell { position: fixed; left: 0; right: 0; bottom: 0; z-index: 10000; display: flex; gap: 1em; align-items: center; padding: 0.4em 1em; background: #24292f; color: #fff; font: 14px system-ui, sans-serif; }
#svc-shell a { color: #9ecbff; text-decoration: none; }
#svc-shell code { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; color: #d0d7de; }
#svc-shell button { font: inherit; padding: 0.2em 0.8em; border-radius: 4px; border: 1px solid #8c959f; background: #f6f8fa; cursor: pointer; }
#svc-shell :focus-visible { outline: 3px solid #8cb6ff; outline-offset: 2px; }
`;

/** The notice of a page answered 401 or 403: over the data browser at the bottom of the window, above the UI shell's bar. */
export const NOTICE_STYLE = `#svc-login-needed { position: fixed; left: 0.75rem; right: 0.75rem; bottom: 0.75rem; z-index: 10001; max-width: 44rem; margin: 0 auto; display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; padding: 0.75em 1em; background: #fff4d6; color: #3d2e00; border: 1px solid #d9b44a; border-radius: 12px; box-shadow: 0 6px 24px rgba(0, 0, 0, 0.18); font: 15px/1.45 system-ui, sans-serif; }
#svc-login-needed[hidden] { display: none; }
#svc-shell ~ #svc-login-needed { bottom: 3.4em; }
#svc-login-needed p { margin: 0; flex: 1 1 18em; }
#svc-login-needed button { font: inherit; font-weight: 600; min-height: 2.75em; padding: 0.3em 1.2em; border-radius: 9px; border: 2px solid #5136c2; background: #5136c2; color: #fff; cursor: pointer; }
#svc-login-needed :focus-visible { outline: 3px solid #1a6fe0; outline-offset: 2px; }
`;
