/** The consent page of an app's authorization and the page that shows an out-of-band code. */
import { escapeHtml } from '../pods/layout.ts';
import { LOGOUT_PATH } from '../idp/paths.ts';
import { CONSENT_PATH } from './paths.ts';

/** What each scope lets the app do, in words (finer Mastodon scopes are described by their broad one). */
function describeScope(scope: string): string {
  const module = /^(.+):(r|rw)$/.exec(scope);
  if (module && !scope.startsWith('read:') && !scope.startsWith('write:')) {
    const where = module[1] === '*' ? 'all your remoteStorage folders' : `your remoteStorage folder "${module[1]}"`;
    return `${module[2] === 'rw' ? 'read and change' : 'read'} ${where}`;
  }
  if (scope === 'read') return 'read your account and the resources of your pod you may read';
  if (scope === 'write') return 'change the resources of your pod you may change (never their access rules)';
  if (scope.startsWith('read:')) return `read your ${scope.slice(5)} (Mastodon API)`;
  if (scope.startsWith('write:')) return `change your ${scope.slice(6)} (Mastodon API)`;
  if (scope === 'follow') return 'follow and unfollow accounts for you';
  if (scope === 'push') return 'receive push notifications';
  if (scope === 'profile') return 'read your profile only';
  return scope;
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');

export interface AppConsentView {
  csrf: string;
  request: Record<string, string>;
  appName: string;
  website: string | null;
  scopes: readonly string[];
  /** Where the browser goes back to; null for the out-of-band flow (the code is shown). */
  redirectUri: string | null;
  webId: string;
}

export function appConsentPage(view: AppConsentView): string {
  const website = view.website ? `<tr><td>Website</td><td><code>${escapeHtml(view.website)}</code></td></tr>` : '';
  const back = view.redirectUri ? `<code>${escapeHtml(view.redirectUri)}</code>` : 'nowhere: a code is shown for you to paste into the app';
  return `<p>You are logged in as <code>${escapeHtml(view.webId)}</code>.</p>
<p>The app <strong>${escapeHtml(view.appName)}</strong> asks to:</p>
<ul id="scopes">${view.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(describeScope(scope))}</li>`).join('')}</ul>
<table>${website}<tr><td>Returns to</td><td>${back}</td></tr></table>
<form method="post" action="${CONSENT_PATH}">
${hidden({ ...view.request, csrf: view.csrf })}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<form method="post" action="${LOGOUT_PATH}">${hidden({ csrf: view.csrf })}<button type="submit">Not you? Log out</button></form>`;
}

export function outOfBandCodePage(appName: string, code: string): string {
  return `<p>Copy this code and paste it into <strong>${escapeHtml(appName)}</strong>:</p>
<p><code id="code">${escapeHtml(code)}</code></p>
<p class="note">It works once, within 10 minutes.</p>`;
}
