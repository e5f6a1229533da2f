/** The identity provider's pages: plain HTML forms that work without JavaScript. */
import { sha256 } from '@noble/hashes/sha2.js';
import { escapeHtml } from '../pods/layout.ts';
import { NOSTR_SCRIPT } from './nostr-script.ts';
import { PASSKEY_SCRIPT } from './passkey-script.ts';
import type { AuthorizedApp } from './authorized-apps.ts';
import { ACCOUNT_PATH, AUTH_PATH, CONSENT_PATH, LOGOUT_PATH, NOSTR_LINK_PATH, NOSTR_LOGIN_PATH, REGISTER_PATH, SIGN_OUT_EVERYWHERE_PATH } from './paths.ts';

/** A CSP source that allows exactly this inline script: the pages' scripts are constants, so their hashes are too. */
const hashSource = (script: string) => `'sha256-${btoa(String.fromCharCode(...sha256(new TextEncoder().encode(script))))}'`;
const nostrScript = `<script>${NOSTR_SCRIPT}</script>`;
const passkeyScript = `<script>${PASSKEY_SCRIPT}</script>`;
const PAGE_SCRIPTS = [
  { tag: nostrScript, source: hashSource(NOSTR_SCRIPT) },
  { tag: passkeyScript, source: hashSource(PASSKEY_SCRIPT) },
];

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00;border:1px solid #a00;padding:.5rem}
.note{color:#555}code{word-break:break-all}table{border-collapse:collapse}td{padding:.2rem .5rem .2rem 0}`;

const STYLE_SOURCE = hashSource(STYLE);

/**
 * The headers of every page of the identity provider and OAuth: never cached, never framed (`frame-ancestors`,
 * and `X-Frame-Options` for older browsers), in a browsing context group of their own (a window another page
 * opened gets no handle on them), with only the page's own script and style.
 */
function pageHeaders(policy: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'same-origin',
    'Content-Security-Policy': policy,
  };
}

/**
 * A whole page; `body` is trusted HTML built from escaped parts. A page with passkey buttons (`passkeys`)
 * carries their script inline; the CSP allows each script the page holds by its hash, and lets it fetch from its own origin.
 */
export function page(title: string, body: string, status = 200, headers: Record<string, string> = {}, passkeys = false): Response {
  const script = passkeys ? passkeyScript + '\n' : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
${script}</body></html>
`;
  // Only the scripts this page holds may run, and only they may fetch (from this origin).
  const sources = PAGE_SCRIPTS.filter(({ tag }) => html.includes(tag)).map(({ source }) => source);
  const scripts = sources.length > 0 ? ` script-src ${sources.join(' ')}; connect-src 'self';` : '';
  return new Response(html, { status, headers: { ...pageHeaders(`default-src 'none';${scripts} style-src ${STYLE_SOURCE}; base-uri 'none'; form-action 'self' http: https:; frame-ancestors 'none'`), ...headers } });
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');

const errorBox = (error?: string) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '');

export interface LoginView {
  csrf: string;
  /** The authorization request being answered (hidden fields); empty for a plain login to the account page. */
  request: Record<string, string>;
  clientName?: string;
  /** A page of this identity provider to return to after the login (the OAuth consent page). */
  next?: string;
  email?: string;
  error?: string;
}

export function loginPage(view: LoginView): string {
  const purpose = view.clientName ? `<p>Log in to continue to <strong>${escapeHtml(view.clientName)}</strong>.</p>` : '<p>Log in to your account.</p>';
  return `${purpose}
${errorBox(view.error)}
<form method="post" action="${AUTH_PATH}" id="login-form">
${hidden({ ...view.request, ...(view.next && { next: view.next, client_name: view.clientName ?? '' }), csrf: view.csrf })}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username webauthn" required value="${escapeHtml(view.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p><button type="button" id="passkey-login">Log in with a passkey</button></p>
<p id="passkey-status" class="note">With a passkey no password is needed; the email is optional.</p>
<button type="button" hidden data-nostr-post="${NOSTR_LOGIN_PATH}" data-nostr-fields="login-form">Log in with Nostr (your browser extension signs)</button>
<p id="nostr-status" aria-live="polite"></p>
${nostrScript}
<p class="note">No account yet? <a href="${REGISTER_PATH}">Register</a>.</p>`;
}

export interface ConsentView {
  csrf: string;
  request: Record<string, string>;
  clientName: string;
  clientId: string;
  redirectUri: string;
  webId: string;
  /** After a password login by an account without passkeys: offer to add one. */
  offerPasskey?: boolean;
}

/** The form that adds a passkey to the logged-in account; the page script does the work. */
function addPasskeyForm(reload: boolean): string {
  return `<label for="passkey-name">Name of a new passkey (for example the device)</label><input id="passkey-name" maxlength="100" value="Passkey">
<button type="button" id="passkey-add"${reload ? ' data-reload="1"' : ''}>Add a passkey</button>
<p id="passkey-status" class="note"></p>`;
}

export function consentPage(view: ConsentView): string {
  return `<p>You are logged in as <code>${escapeHtml(view.webId)}</code>.</p>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to act as you with your WebID.</p>
<table><tr><td>Client</td><td><code>${escapeHtml(view.clientId)}</code></td></tr>
<tr><td>Returns to</td><td><code>${escapeHtml(view.redirectUri)}</code></td></tr></table>
<form method="post" action="${CONSENT_PATH}">
${hidden({ ...view.request, csrf: view.csrf })}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<form method="post" action="${LOGOUT_PATH}">${hidden({ csrf: view.csrf })}<button type="submit">Not you? Log out</button></form>
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
}

export function registerPage(view: RegisterView): string {
  const invite = view.inviteOnly && !view.singleUser
    ? `<label for="invite">Invite code</label><input id="invite" name="invite" required autocomplete="off" value="${escapeHtml(view.invite ?? '')}">`
    : '';
  const pod = view.singleUser
    ? `<label for="token">Owner token (printed when the server made the pod, or <code>svc token</code>)</label><input id="token" name="token" required autocomplete="off">`
    : `<label for="name">Pod name (lower-case letters, digits, - and _)</label><input id="name" name="name" required pattern="[a-z0-9_\\-]{1,63}" value="${escapeHtml(view.name ?? '')}">`;
  const intro = view.singleUser ? '<p>This server has one pod. Its owner makes the account to log in with.</p>' : '<p>An account comes with a pod and a WebID.</p>';
  return `${intro}
${errorBox(view.error)}
<form method="post" action="${REGISTER_PATH}">
${hidden({ csrf: view.csrf })}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(view.email ?? '')}">
<label for="password">Password (at least 8 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
${pod}
${invite}
<button type="submit">Register</button>
</form>
<p class="note">Have an account? <a href="${AUTH_PATH}">Log in</a>.</p>`;
}

export function registeredPage(webId: string, podUri: string): string {
  return `<p>Your pod is at <a href="${escapeHtml(podUri)}">${escapeHtml(podUri)}</a> and your WebID is <code>${escapeHtml(webId)}</code>.</p>
<p><a href="${AUTH_PATH}">Log in</a> to manage your account, or log in from any Solid app with this server as your identity provider.</p>`;
}

export interface AccountView {
  csrf: string;
  email: string;
  webId: string;
  credentials: { clientId: string; name: string; created: string }[];
  passkeys: { id: string; name: string; created: string; lastUsed?: string }[];
  message?: string;
  error?: string;
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
  return `<form method="post" action="${action}">${hidden(fields)}<button type="submit" aria-label="${escapeHtml(label)}">${escapeHtml(text)}</button></form>`;
}

function appsSection(view: AccountView): string {
  const rows = view.apps
    .map(
      (app) => `<tr><td>${escapeHtml(app.name)}</td><td><code>${escapeHtml(app.clientId)}</code></td><td>${escapeHtml(app.scope)}</td><td>${timeOf(app.created)}</td><td>${timeOf(app.lastUsed)}</td><td>${timeOf(app.expires)}</td>
<td>${buttonForm(`${ACCOUNT_PATH}/apps/revoke`, { csrf: view.csrf, app: app.id }, 'Revoke', `Revoke ${app.name}`)}</td></tr>`,
    )
    .join('\n');
  const table = `<table aria-labelledby="apps-heading"><thead><tr><th scope="col">App</th><th scope="col">Client</th><th scope="col">Allowed to</th><th scope="col">Allowed</th><th scope="col">Last used</th><th scope="col">Until</th><th scope="col"><span class="note">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
  return `<section aria-labelledby="apps-heading"><h2 id="apps-heading">Apps you allowed</h2>
<p class="note">Apps that logged in as you and still hold tokens. Revoking one logs it out: its tokens end at once.</p>
${rows ? table : '<p>None.</p>'}</section>`;
}

function sessionsSection(view: AccountView): string {
  const rows = view.sessions
    .map(
      (session) => `<tr><td>${escapeHtml(session.agent || 'unknown browser')}</td><td>${timeOf(session.created)}</td>
<td>${session.current ? 'This browser' : buttonForm(`${ACCOUNT_PATH}/sessions/end`, { csrf: view.csrf, session: session.id }, 'Log out', `Log out the session begun ${new Date(session.created).toISOString()}`)}</td></tr>`,
    )
    .join('\n');
  return `<section aria-labelledby="sessions-heading"><h2 id="sessions-heading">Where you are logged in</h2>
<table aria-labelledby="sessions-heading"><thead><tr><th scope="col">Browser</th><th scope="col">Since</th><th scope="col"><span class="note">Action</span></th></tr></thead>
<tbody>${rows}</tbody></table>
<form method="post" action="${SIGN_OUT_EVERYWHERE_PATH}">${hidden({ csrf: view.csrf })}
<p id="sign-out-everywhere-note" class="note">Ends every session (this one too) and every token your apps and scripts hold. Client credentials stay until you revoke them.</p>
<button type="submit" aria-describedby="sign-out-everywhere-note">Sign out everywhere</button>
</form></section>`;
}

export function accountPage(view: AccountView): string {
  const created = view.created
    ? `<div class="error" role="status"><p>New client credential. Copy the secret now; it is not shown again.</p>
<p>client_id: <code>${escapeHtml(view.created.clientId)}</code><br>client_secret: <code>${escapeHtml(view.created.secret)}</code></p></div>`
    : '';
  const rows = view.credentials
    .map(
      (credential) => `<tr><td>${escapeHtml(credential.name)}</td><td><code>${escapeHtml(credential.clientId)}</code></td><td>${escapeHtml(credential.created.slice(0, 10))}</td>
<td><form method="post" action="${ACCOUNT_PATH}/credentials/revoke">${hidden({ csrf: view.csrf, client_id: credential.clientId })}<button type="submit">Revoke</button></form></td></tr>`,
    )
    .join('\n');
  const passkeyRows = view.passkeys
    .map(
      (passkey) => `<tr><td>${escapeHtml(passkey.name)}</td><td>added ${escapeHtml(passkey.created.slice(0, 10))}</td><td>${passkey.lastUsed ? `last used ${escapeHtml(passkey.lastUsed.slice(0, 10))}` : 'not used yet'}</td>
<td><form method="post" action="${ACCOUNT_PATH}/passkeys/remove">${hidden({ csrf: view.csrf, id: passkey.id })}<button type="submit">Remove</button></form></td></tr>`,
    )
    .join('\n');
  return `<p>Logged in as <strong>${escapeHtml(view.email)}</strong>, WebID <code>${escapeHtml(view.webId)}</code>.</p>
${view.message ? `<p role="status">${escapeHtml(view.message)}</p>` : ''}${errorBox(view.error)}${created}
<h2>Passkeys</h2>
${passkeyRows ? `<table>${passkeyRows}</table>` : '<p>None yet: add one to log in without your password.</p>'}
${addPasskeyForm(true)}
<h2>Client credentials</h2>
<p class="note">Scripts log in with these (OAuth client_credentials grant at the token endpoint).</p>
${rows ? `<table>${rows}</table>` : '<p>None yet.</p>'}
<form method="post" action="${ACCOUNT_PATH}/credentials">
${hidden({ csrf: view.csrf })}
<label for="cred-name">Name of a new credential</label><input id="cred-name" name="name" required maxlength="100">
<button type="submit">Create</button>
</form>
<h2>Nostr keys</h2>
<p class="note">A linked key logs in on the login page (NIP-07 extension) and names this account in the DID document this server serves for it. For requests signed with the key (NIP-98) to count as your WebID, add <code>owl:sameAs &lt;did:nostr:…&gt;</code> to your profile.</p>
${view.nostrKeys.length ? `<ul>${view.nostrKeys.map((key) => `<li><code>did:nostr:${escapeHtml(key)}</code></li>`).join('')}</ul>` : '<p>None yet.</p>'}
<form id="nostr-link-form">${hidden({ csrf: view.csrf, challenge: view.nostrChallenge })}</form>
<button type="button" hidden data-nostr-post="${NOSTR_LINK_PATH}" data-nostr-fields="nostr-link-form">Link the key of your Nostr extension</button>
<p id="nostr-status" aria-live="polite"></p>
${nostrScript}
${appsSection(view)}
${sessionsSection(view)}
<h2>Password</h2>
<form method="post" action="${ACCOUNT_PATH}/password">
${hidden({ csrf: view.csrf })}
<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="new">New password (at least 8 characters)</label><input id="new" name="password" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">Change password</button>
</form>
<form method="post" action="${LOGOUT_PATH}">${hidden({ csrf: view.csrf })}<button type="submit">Log out</button></form>`;
}
