/** The server's own small scripts and styles around the data browser, served under `/.databrowser/`. */

/** Starts mashlib once the page is parsed (deferred scripts run before DOMContentLoaded). */
export const START_SCRIPT = `document.addEventListener('DOMContentLoaded', () => panes.runDataBrowser());\n`;

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
    const info = session() ? session().info : { isLoggedIn: false };
    login.hidden = info.isLoggedIn;
    logout.hidden = !info.isLoggedIn;
    user.textContent = info.isLoggedIn ? info.webId : '';
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
`;
