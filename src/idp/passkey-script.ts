/**
 * The pages' script for passkeys (inline, allowed by its hash). It wires the elements that are present:
 * `#passkey-login` on the login page, `#passkey-add` on the account and consent pages. It speaks JSON with
 * /idp/passkeys/ and hands options and credentials to the browser's own WebAuthn JSON helpers. The
 * browser's errors become sentences that say what to do (`explain`).
 */
import { PASSKEYS_PATH } from './paths.ts';

export const PASSKEY_SCRIPT = `(() => {
const status = document.getElementById('passkey-status');
const say = (text, failed) => {
  status.textContent = text; status.setAttribute('role', failed ? 'alert' : 'status'); status.className = failed ? 'status error' : 'status note';
  // An address the message names becomes a link to it.
  const address = /https?:\\/\\/\\S+\\//.exec(text);
  if (address) { const link = document.createElement('a'); link.href = address[0]; link.textContent = address[0]; status.textContent = text.slice(0, address.index); status.append(link, text.slice(address.index + address[0].length)); }
};
const csrf = document.querySelector('input[name=csrf]').value;
const onAddress = /^[0-9.]+$|^\\[.*\\]$/.test(location.hostname);
function explain(error, making) {
  if (error.name === 'NotAllowedError') return 'The passkey prompt was cancelled or timed out. Try again, and confirm on your device or in the browser dialog' + (making ? '.' : '; if no passkey is offered, this device has none for this site: log in with your password.');
  if (error.name === 'SecurityError' && onAddress) {
    const local = location.hostname === '127.0.0.1' || location.hostname === '[::1]';
    const named = new URL(location.href); named.hostname = 'localhost';
    return local ? 'Passkeys need a domain name, not an IP address: open ' + named.origin + '/ instead and log in there.' : 'Passkeys need a domain name, not an IP address: open this server by its name.';
  }
  if (error.name === 'SecurityError') return 'This browser allows passkeys only on https (or localhost) and on the site\\'s own name: open the server at its https address.';
  if (error.name === 'InvalidStateError') return 'This device holds a passkey for this account already: log in with it, or remove it below first.';
  if (error.name === 'NotSupportedError') return 'This browser or device cannot make the kind of passkey this server asks for (a discoverable one with a PIN or screen lock). Try another device.';
  if (error.name === 'AbortError') return 'The passkey prompt was closed. Try again.';
  if (error.name === 'ConstraintError') return 'This device cannot check that it is you (no PIN, fingerprint or screen lock). Set one up, or use another device.';
  return error.message;
}
async function call(path, body) {
  const response = await fetch('${PASSKEYS_PATH}/' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrf, ...body }) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.detail || 'The server answered ' + response.status + '. Reload the page and try again.');
  return answer;
}
const supported = typeof PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function';
const unsupported = 'This browser cannot use passkeys on this page: update it, or log in with your password.';
const login = document.getElementById('passkey-login');
if (login) login.addEventListener('click', async () => {
  if (!supported) return say(unsupported, true);
  say('Waiting for your passkey…', false);
  try {
    const email = document.getElementById('email').value.trim();
    const options = await call('login-options', email ? { email } : {});
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    const request = {};
    for (const input of document.querySelectorAll('#login-form input[type=hidden]')) if (input.name !== 'csrf') request[input.name] = input.value;
    const { location } = await call('login', { credential: credential.toJSON(), request });
    window.location.assign(location);
  } catch (error) { say(explain(error, false), true); }
});
const add = document.getElementById('passkey-add');
if (add) add.addEventListener('click', async () => {
  if (!supported) return say(unsupported, true);
  const name = document.getElementById('passkey-name').value.trim();
  if (!name) return say('Give the passkey a name first.', true);
  say('Waiting for your device…', false);
  try {
    const options = await call('registration-options', {});
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    await call('registration', { name, credential: credential.toJSON() });
    if (add.dataset.reload) window.location.reload(); else say('Passkey "' + name + '" added: next time, log in with it.', false);
  } catch (error) { say(explain(error, true), true); }
});
})();`;
