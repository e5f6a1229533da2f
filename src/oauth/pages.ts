/** The consent page of an app's authorization and the page that shows an out-of-band code. */
import { escapeHtml, hiddenFields } from '../http/html.ts';
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
  const website = view.website ? `<dt>Website</dt><dd><code>${escapeHtml(view.website)}</code></dd>` : '';
  const back = view.redirectUri ? `<code>${escapeHtml(view.redirectUri)}</code>` : 'nowhere: a code is shown here for you to paste into the app';
  const warning = view.redirectUri ? `<p class="note">Allow only an app you opened yourself: whoever receives the token at <code>${escapeHtml(new URL(view.redirectUri).origin)}</code> acts as you.</p>` : '';
  return `<p class="lead">The app <strong>${escapeHtml(view.appName)}</strong> asks for access to your account.</p>
<dl class="facts">
<dt>You</dt><dd><code>${escapeHtml(view.webId)}</code></dd>
<dt>App</dt><dd>${escapeHtml(view.appName)}</dd>${website}
<dt>The token goes to</dt><dd>${back}</dd>
</dl>
<p>If you allow it, the app may:</p>
<ul id="scopes" class="scopes">${view.scopes.map((scope) => `<li>${escapeHtml(describeScope(scope))} <span class="note">(<code>${escapeHtml(scope)}</code>)</span></li>`).join('')}</ul>
${warning}
<form method="post" action="${CONSENT_PATH}">
${hiddenFields({ ...view.request, csrf: view.csrf })}
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
<form method="post" action="${LOGOUT_PATH}">${hiddenFields({ csrf: view.csrf })}<button type="submit" class="secondary small">Not you? Log out</button></form>`;
}

export function outOfBandCodePage(appName: string, code: string): string {
  return `<p class="lead">Copy this code and paste it into <strong>${escapeHtml(appName)}</strong>:</p>
<p><code id="code">${escapeHtml(code)}</code></p>
<p class="note">It works once, within 10 minutes.</p>`;
}
