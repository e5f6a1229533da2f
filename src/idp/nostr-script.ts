/**
 * The script of the login and account pages for Nostr: it asks the browser's NIP-07 extension
 * (`window.nostr`) to sign a NIP-98 event for the form it posts (URL, POST, SHA-256 of the body), sends it
 * as `Authorization: Nostr`, and follows the answer. Without an extension the buttons stay hidden.
 */
export const NOSTR_SCRIPT = `'use strict';
(() => {
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
  const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  async function signedPost(url, fields) {
    const body = new URLSearchParams(fields).toString();
    const payload = hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
    const event = await window.nostr.signEvent({ kind: 27235, created_at: Math.floor(Date.now() / 1000), content: '', tags: [['u', url], ['method', 'POST'], ['payload', payload]] });
    return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Nostr ' + base64(JSON.stringify(event)) }, body });
  }
  function start() {
    const button = document.querySelector('[data-nostr-post]');
    if (!button || !window.nostr) return;
    const status = document.getElementById('nostr-status');
    button.hidden = false;
    const say = (text, failed) => { status.hidden = false; status.textContent = text; status.className = failed ? 'status error' : 'status note'; status.setAttribute('role', failed ? 'alert' : 'status'); };
    button.addEventListener('click', async () => {
      say('Waiting for your Nostr extension to sign…', false);
      try {
        const url = new URL(button.dataset.nostrPost, location.href).href;
        const form = document.getElementById(button.dataset.nostrFields);
        const fields = Array.from(form.querySelectorAll('input[type=hidden]'), (input) => [input.name, input.value]);
        const response = await signedPost(url, fields);
        const answer = await response.json();
        if (!response.ok) throw new Error(answer.detail || answer.title || response.statusText);
        location.assign(answer.location);
      } catch (error) {
        say(/reject|denied|cancel/i.test(error.message) ? 'The extension did not sign: allow the request in it, then try again.' : error.message, true);
      }
    });
  }
  // Extensions inject window.nostr around page load: look once the page is loaded.
  if (document.readyState === 'complete') start();
  else addEventListener('load', start);
})();
`;
