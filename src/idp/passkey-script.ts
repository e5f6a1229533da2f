/**
 * The pages' script for passkeys (served inline with a CSP nonce). It wires the elements that are present:
 * `#passkey-login` on the login page, `#passkey-add` on the account and consent pages. It speaks JSON with
 * /idp/passkeys/ and hands options and credentials to the browser's own WebAuthn JSON helpers.
 */
import { PASSKEYS_PATH } from './paths.ts';

export const PASSKEY_SCRIPT = `(() => {
const status = document.getElementById('passkey-status');
const say = (text, failed) => { status.textContent = text; status.setAttribute('role', failed ? 'alert' : 'status'); status.className = failed ? 'error' : ''; };
const csrf = document.querySelector('input[name=csrf]').value;
async function call(path, body) {
  const response = await fetch('${PASSKEYS_PATH}/' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrf, ...body }) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(answer.detail || 'The server answered ' + response.status + '.');
  return answer;
}
const supported = typeof PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function';
const login = document.getElementById('passkey-login');
if (login) login.addEventListener('click', async () => {
  if (!supported) return say('This browser cannot use passkeys here.', true);
  try {
    const email = document.getElementById('email').value.trim();
    const options = await call('login-options', email ? { email } : {});
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
    const request = {};
    for (const input of document.querySelectorAll('#login-form input[type=hidden]')) if (input.name !== 'csrf') request[input.name] = input.value;
    const { location } = await call('login', { credential: credential.toJSON(), request });
    window.location.assign(location);
  } catch (error) { say(error.message, true); }
});
const add = document.getElementById('passkey-add');
if (add) add.addEventListener('click', async () => {
  if (!supported) return say('This browser cannot make passkeys here.', true);
  const name = document.getElementById('passkey-name').value.trim();
  if (!name) return say('Give the passkey a name first.', true);
  try {
    const options = await call('registration-options', {});
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
    await call('registration', { name, credential: credential.toJSON() });
    if (add.dataset.reload) window.location.reload(); else say('Passkey "' + name + '" added: next time, log in with it.', false);
  } catch (error) { say(error.message, true); }
});
})();`;
