/** The identity provider's pages: plain HTML forms that work without JavaScript, in the shared design (src/http/html.ts). */
import { escapeHtml, field, hiddenFields, htmlPage, messageBox } from '../http/html.ts';
import { NOSTR_SCRIPT } from './nostr-script.ts';
import { PASSKEY_SCRIPT } from './passkey-script.ts';
import type { AuthorizedApp } from './authorized-apps.ts';
import { ACCOUNT_PATH, AUTH_PATH, CONSENT_PATH, LOGOUT_PATH, NOSTR_LINK_PATH, NOSTR_LOGIN_PATH, REGISTER_PATH, SIGN_OUT_EVERYWHERE_PATH } from './paths.ts';

/** The marks of the scripts a page body asks for: `page()` adds each script once, at the end of the body. */
const NOSTR_MARK = 'data-nostr-post=';
const PASSKEY_MARK = 'id="passkey-';

/**
 * A whole page; `body` is trusted HTML built from escaped parts. The passkey and Nostr scripts come with
 * the page whose body has their buttons; the CSP allows each by its hash and lets it fetch from this origin.
 */
export function page(title: string, body: string, status = 200, headers: Record<string, string> = {}): Response {
  const scripts = [...(body.includes(PASSKEY_MARK) ? [PASSKEY_SCRIPT] : []), ...(body.includes(NOSTR_MARK) ? [NOSTR_SCRIPT] : [])];
  return htmlPage({ title, body, status, headers, scripts });
}

/** A form-level error, or nothing. */
const errorBox = (error?: string) => (error ? messageBox('error', error) : '');

/** The error of the field `id`, when the view's error concerns that field. */
const errorOf = (view: { error?: string; errorField?: string }, id: string) => (view.errorField === id ? view.error : undefined);
/** The error of the whole form, when it concerns no one field. */
const formError = (view: { error?: string; errorField?: string }) => (view.errorField ? undefined : view.error);

export interface LoginView {
  csrf: string;
  /** The authorization request being answered (hidden fields); empty for a plain login to the account page. */
  request: Record<string, string>;
  clientName?: string;
  /** A page of this identity provider to return to after the login (the OAuth consent page). */
  next?: string;
  email?: string;
  error?: string;
  /** The field the error concerns (`password`); none for an error about the whole form. */
  errorField?: string;
}

export function loginPage(view: LoginView): string {
  const purpose = view.clientName ? `Log in to continue to <strong>${escapeHtml(view.clientName)}</strong>.` : 'Log in to your account.';
  return `<p class="lead">${purpose}</p>
${errorBox(formError(view))}
<form method="post" action="${AUTH_PATH}" id="login-form">
${hiddenFields({ ...view.request, ...(view.next && { next: view.next, client_name: view.clientName ?? '' }), csrf: view.csrf })}
${field({ id: 'email', name: 'email', label: 'Email', type: 'email', value: view.email ?? '', error: errorOf(view, 'email'), attributes: 'autocomplete="username webauthn" required' })}
${field({ id: 'password', name: 'password', label: 'Password', type: 'password', error: errorOf(view, 'password'), attributes: 'autocomplete="current-password" required' })}
<div class="actions"><button type="submit">Log in</button></div>
</form>
<p class="divider">or</p>
<div class="actions"><button type="button" class="secondary" id="passkey-login" aria-describedby="passkey-status">Log in with a passkey</button>
<button type="button" class="secondary" hidden data-nostr-post="${NOSTR_LOGIN_PATH}" data-nostr-fields="login-form" aria-describedby="nostr-status">Log in with Nostr</button></div>
<p id="passkey-status" class="status note" aria-live="polite">With a passkey no password is needed; the email is optional.</p>
<p id="nostr-status" class="status" aria-live="polite" hidden></p>
<p class="note">No account yet? <a href="${REGISTER_PATH}">Register</a>.</p>`;
}

export interface ConsentView {
  csrf: string;
  request: Record<string, string>;
  clientName: string;
  clientId: string;
  redirectUri: string;
  webId: string;
  /** The scopes asked for (`openid webid offline_access`). */
  scope: string;
  /**
   * The server's own data browser, which it registered itself: on the server's origin, or on a pod's host
   * (subdomain mode), whose origin the pod's stored pages share.
   */
  firstParty?: 'server' | 'pod-host';
  /** After a password login by an account without passkeys: offer to add one. */
  offerPasskey?: boolean;
}

/** What each Solid-OIDC scope lets an app do, in words. */
function describeSolidScope(scope: string): string | null {
  if (scope === 'openid') return 'know that it is you';
  if (scope === 'webid') return 'act as your WebID: read and change, on this server and on every other Solid server, whatever your WebID may read and change';
  if (scope === 'offline_access') return 'stay logged in after you close the page, until you log it out (account page) or change your password';
  if (scope === 'profile' || scope === 'email') return `read your ${scope === 'email' ? 'email address' : 'profile'}`;
  return null;
}

/** The form that adds a passkey to the logged-in account; the page script does the work. */
function addPasskeyForm(reload: boolean): string {
  return `${field({ id: 'passkey-name', label: 'Name of the new passkey', hint: 'For example the device it is on.', value: 'Passkey', attributes: 'maxlength="100"' })}
<div class="actions"><button type="button" id="passkey-add"${reload ? ' data-reload="1"' : ''} aria-describedby="passkey-status">Add a passkey</button></div>
<p id="passkey-status" class="status note" aria-live="polite"></p>`;
}

function logoutForm(csrf: string, label = 'Not you? Log out'): string {
  return `<form method="post" action="${LOGOUT_PATH}">${hiddenFields({ csrf })}<button type="submit" class="secondary small">${escapeHtml(label)}</button></form>`;
}

export function consentPage(view: ConsentView): string {
  const scopes = view.scope.split(' ').filter(Boolean);
  const described = scopes.map((scope) => `<li>${escapeHtml(describeSolidScope(scope) ?? `use the scope "${scope}"`)} <span class="note">(<code>${escapeHtml(scope)}</code>)</span></li>`).join('');
  const who = view.firstParty ? `${escapeHtml(view.clientName)}, which this server runs itself` : escapeHtml(view.clientName);
  const podHost = view.firstParty === 'pod-host' ? `<p class="note">It runs on the host of a pod, <code>${escapeHtml(new URL(view.redirectUri).host)}</code>, where the pages stored in that pod run too: allow it only if you opened the data browser there yourself.</p>\n` : '';
  return `<p class="lead"><strong>${who}</strong> asks to log in as you.</p>
${podHost}<dl class="facts">
<dt>You</dt><dd><code>${escapeHtml(view.webId)}</code></dd>
<dt>App</dt><dd>${escapeHtml(view.clientName)}<br><code>${escapeHtml(view.clientId)}</code></dd>
<dt>Your login goes to</dt><dd><code>${escapeHtml(view.redirectUri)}</code></dd>
</dl>
<p>If you allow it, the app may:</p>
<ul class="scopes">${described}</ul>
<p class="note">Allow only an app you opened yourself: whoever receives the login at <code>${escapeHtml(new URL(view.redirectUri).origin)}</code> acts as you.</p>
<form method="post" action="${CONSENT_PATH}">
${hiddenFields({ ...view.request, csrf: view.csrf })}
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
${logoutForm(view.csrf)}
${view.offerPasskey ? `<h2>Log in faster next time</h2><p>Add a passkey to log in without your password.</p>\n${addPasskeyForm(false)}` : ''}`;
}

export interface RegisterView {
  csrf: string;
  inviteOnly: boolean;
  /** Single-user mode: the owner makes the one pod's account with the owner token; no pod name. */
  singleUser: boolean;
  email?: string;
  name?: string;
  invite?: string;
  error?: string;
  /** The field the error concerns (`email`, `password`, `name`, `invite`, `token`); none for the whole form. */
  errorField?: string;
}

export function registerPage(view: RegisterView): string {
  const invite =
    view.inviteOnly && !view.singleUser
      ? field({ id: 'invite', name: 'invite', label: 'Invite code', hint: 'This server makes accounts by invitation: the code you were given.', value: view.invite ?? '', error: errorOf(view, 'invite'), attributes: 'required autocomplete="off"' })
      : '';
  const pod = view.singleUser
    ? field({ id: 'token', name: 'token', label: 'Owner token', hint: 'Printed when the server made the pod (or run "svc token").', type: 'password', error: errorOf(view, 'token'), attributes: 'required autocomplete="off"' })
    : field({ id: 'name', name: 'name', label: 'Pod name', hint: 'Lower-case letters, digits, - and _. It becomes part of your WebID.', value: view.name ?? '', error: errorOf(view, 'name'), attributes: 'required pattern="[a-z0-9_\\-]{1,63}" autocapitalize="none" spellcheck="false"' });
  const intro = view.singleUser ? '<p class="lead">This server has one pod. Its owner makes the account to log in with.</p>' : '<p class="lead">An account comes with a pod and a WebID.</p>';
  return `${intro}
${errorBox(formError(view))}
<form method="post" action="${REGISTER_PATH}">
${hiddenFields({ csrf: view.csrf })}
${field({ id: 'email', name: 'email', label: 'Email', type: 'email', value: view.email ?? '', error: errorOf(view, 'email'), attributes: 'autocomplete="username" required' })}
${field({ id: 'password', name: 'password', label: 'Password', type: 'password', hint: 'At least 8 characters.', error: errorOf(view, 'password'), attributes: 'autocomplete="new-password" minlength="8" required' })}
${pod}
${invite}
<div class="actions"><button type="submit">Register</button></div>
</form>
<p class="note">Have an account? <a href="${AUTH_PATH}">Log in</a>.</p>`;
}

export function registeredPage(webId: string, podUri: string): string {
  return `<div class="notice" role="status"><p>Your account is made.</p></div>
<dl class="facts"><dt>Your pod</dt><dd><a href="${escapeHtml(podUri)}">${escapeHtml(podUri)}</a></dd>
<dt>Your WebID</dt><dd><code>${escapeHtml(webId)}</code></dd></dl>
<p>Log in from any Solid app with this server as your identity provider.</p>
<div class="actions"><a class="button" href="${AUTH_PATH}">Log in to your account</a></div>`;
}

export interface AccountView {
  csrf: string;
  email: string;
  webId: string;
  credentials: { clientId: string; name: string; created: string }[];
  passkeys: { id: string; name: string; created: string; lastUsed?: string }[];
  message?: string;
  error?: string;
  /** The field the error concerns (`current`, `new`, `cred-name`); none for an error about the page. */
  errorField?: string;
  /** A credential just made: its secret is shown this once. */
  created?: { clientId: string; secret: string };
  /** Nostr keys (hex) linked to the account, and the challenge a new one signs to be linked. */
  nostrKeys: string[];
  nostrChallenge: string;
  /** The apps the account allowed that still hold tokens. */
  apps: AuthorizedApp[];
  /** The browser sessions logged in to the account; `current` is the one showing this page. */
  sessions: { id: string; agent: string; created: number; current: boolean }[];
}

/** A moment as a `<time>` element: minutes in UTC, the exact instant in `datetime`. */
function timeOf(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A one-button form posting `fields` (with the CSRF value) to `action`; `label` names what the button acts on. */
function buttonForm(action: string, fields: Record<string, string>, text: string, label: string): string {
  return `<form method="post" action="${action}">${hiddenFields(fields)}<button type="submit" class="danger small" aria-label="${escapeHtml(label)}">${escapeHtml(text)}</button></form>`;
}

/** A table that scrolls sideways inside the page on a narrow screen, rather than widening the page. */
const scrolling = (table: string) => `<div class="table-wrap">${table}</div>`;

function appsSection(view: AccountView): string {
  const rows = view.apps
    .map(
      (app) => `<tr><td>${escapeHtml(app.name)}</td><td><code>${escapeHtml(app.clientId)}</code></td><td>${escapeHtml(app.scope)}</td><td>${timeOf(app.created)}</td><td>${timeOf(app.lastUsed)}</td><td>${timeOf(app.expires)}</td>
<td>${buttonForm(`${ACCOUNT_PATH}/apps/revoke`, { csrf: view.csrf, app: app.id }, 'Revoke', `Revoke ${app.name}`)}</td></tr>`,
    )
    .join('\n');
  const table = `<table aria-labelledby="apps-heading"><thead><tr><th scope="col">App</th><th scope="col">Client</th><th scope="col">Allowed to</th><th scope="col">Allowed</th><th scope="col">Last used</th><th scope="col">Until</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
  return `<section aria-labelledby="apps-heading"><h2 id="apps-heading">Apps you allowed</h2>
<p class="note">Apps that logged in as you and still hold tokens. Revoking one logs it out: its tokens end at once.</p>
${rows ? scrolling(table) : '<p>None.</p>'}</section>`;
}

function sessionsSection(view: AccountView): string {
  const rows = view.sessions
    .map(
      (session) => `<tr><td>${escapeHtml(session.agent || 'unknown browser')}</td><td>${timeOf(session.created)}</td>
<td>${session.current ? 'This browser' : buttonForm(`${ACCOUNT_PATH}/sessions/end`, { csrf: view.csrf, session: session.id }, 'Log out', `Log out the session begun ${new Date(session.created).toISOString()}`)}</td></tr>`,
    )
    .join('\n');
  return `<section aria-labelledby="sessions-heading"><h2 id="sessions-heading">Where you are logged in</h2>
${scrolling(`<table aria-labelledby="sessions-heading"><thead><tr><th scope="col">Browser</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>`)}
<form method="post" action="${SIGN_OUT_EVERYWHERE_PATH}">${hiddenFields({ csrf: view.csrf })}
<p id="sign-out-everywhere-note" class="note">Ends every session (this one too) and every token your apps and scripts hold. Client credentials stay until you revoke them.</p>
<div class="actions"><button type="submit" class="danger" aria-describedby="sign-out-everywhere-note">Sign out everywhere</button></div>
</form></section>`;
}

export function accountPage(view: AccountView): string {
  const created = view.created
    ? `<div class="notice" role="status"><p>New client credential. Copy the secret now; it is not shown again.</p>
<p>client_id: <code>${escapeHtml(view.created.clientId)}</code><br>client_secret: <code>${escapeHtml(view.created.secret)}</code></p></div>`
    : '';
  const rows = view.credentials
    .map(
      (credential) => `<tr><td>${escapeHtml(credential.name)}</td><td><code>${escapeHtml(credential.clientId)}</code></td><td><time datetime="${escapeHtml(credential.created)}">${escapeHtml(credential.created.slice(0, 10))}</time></td>
<td>${buttonForm(`${ACCOUNT_PATH}/credentials/revoke`, { csrf: view.csrf, client_id: credential.clientId }, 'Revoke', `Revoke the credential ${credential.name}`)}</td></tr>`,
    )
    .join('\n');
  const passkeyRows = view.passkeys
    .map(
      (passkey) => `<tr><td>${escapeHtml(passkey.name)}</td><td>added <time datetime="${escapeHtml(passkey.created)}">${escapeHtml(passkey.created.slice(0, 10))}</time></td><td>${passkey.lastUsed ? `last used <time datetime="${escapeHtml(passkey.lastUsed)}">${escapeHtml(passkey.lastUsed.slice(0, 10))}</time>` : 'not used yet'}</td>
<td>${buttonForm(`${ACCOUNT_PATH}/passkeys/remove`, { csrf: view.csrf, id: passkey.id }, 'Remove', `Remove the passkey ${passkey.name}`)}</td></tr>`,
    )
    .join('\n');
  const nostrRows = view.nostrKeys
    .map((key) => `<tr><td><code>did:nostr:${escapeHtml(key)}</code></td>
<td>${buttonForm(`${NOSTR_LINK_PATH}/unlink`, { csrf: view.csrf, key }, 'Unlink', `Unlink the Nostr key ${key.slice(0, 8)}…`)}</td></tr>`)
    .join('\n');
  return `<p class="lead">Logged in as <strong>${escapeHtml(view.email)}</strong>.</p>
<dl class="facts"><dt>WebID</dt><dd><code>${escapeHtml(view.webId)}</code></dd></dl>
${view.message ? messageBox('status', view.message) : ''}${errorBox(formError(view))}${created}
${logoutForm(view.csrf, 'Log out')}
<h2>Passkeys</h2>
${passkeyRows ? scrolling(`<table aria-label="Passkeys">${passkeyRows}</table>`) : '<p>None yet: add one to log in without your password.</p>'}
${addPasskeyForm(true)}
<h2>Client credentials</h2>
<p class="note">Scripts log in with these (OAuth client_credentials grant at the token endpoint).</p>
${rows ? scrolling(`<table aria-label="Client credentials">${rows}</table>`) : '<p>None yet.</p>'}
<form method="post" action="${ACCOUNT_PATH}/credentials">
${hiddenFields({ csrf: view.csrf })}
${field({ id: 'cred-name', name: 'name', label: 'Name of a new credential', hint: 'What will use it, for example "backup job".', error: errorOf(view, 'cred-name'), attributes: 'required maxlength="100"' })}
<div class="actions"><button type="submit">Create</button></div>
</form>
<h2>Nostr keys</h2>
<p class="note">A linked key logs in on the login page (NIP-07 extension) and names this account in the DID document this server serves for it. For requests signed with the key (NIP-98) to count as your WebID, add <code>owl:sameAs &lt;did:nostr:…&gt;</code> to your profile.</p>
${nostrRows ? scrolling(`<table aria-label="Nostr keys">${nostrRows}</table>`) : '<p>None yet.</p>'}
<form id="nostr-link-form">${hiddenFields({ csrf: view.csrf, challenge: view.nostrChallenge })}</form>
<div class="actions"><button type="button" class="secondary" hidden data-nostr-post="${NOSTR_LINK_PATH}" data-nostr-fields="nostr-link-form" aria-describedby="nostr-status">Link the key of your Nostr extension</button></div>
<p id="nostr-status" class="status" aria-live="polite" hidden></p>
${appsSection(view)}
${sessionsSection(view)}
<h2>Password</h2>
<form method="post" action="${ACCOUNT_PATH}/password">
${hiddenFields({ csrf: view.csrf })}
${field({ id: 'current', name: 'current', label: 'Current password', type: 'password', error: errorOf(view, 'current'), attributes: 'autocomplete="current-password" required' })}
${field({ id: 'new', name: 'password', label: 'New password', type: 'password', hint: 'At least 8 characters. Every other session and every app token ends.', error: errorOf(view, 'new'), attributes: 'autocomplete="new-password" minlength="8" required' })}
<div class="actions"><button type="submit">Change password</button></div>
</form>`;
}
