/**
 * The account takeover of issue 28, replayed in Chromium (Debian's, through playwright-core) against real
 * `svc start --idp` processes: alice stores an HTML page and an SVG image in her pod and posts an HTML body
 * into a guestbook anyone may append to; bob, logged in at the identity provider, opens each. Every page
 * tries to read bob's account page, to make client credentials for him, to read his private resource, to
 * get a token through /oauth/authorize, and to frame the consent page. Each attempt must fail, in path mode
 * (and through the data browser, which frames stored HTML) and in subdomain mode. In path mode the pages also
 * try a Solid-OIDC login of bob's sent to themselves (registering a client for their own URL, the public
 * client), and one of the data browser, the server's first-party client, whose code stays on its callback.
 * The legitimate use stays: an app stored in alice's pod, on her pod's own host, uses localStorage and reads
 * her private resource after she logs in. Without chromium the test is skipped, except in CI (CI=true).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { loopbackFetchFor } from '../support/localhost-hosts.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { bundleBrowserApp } from '../idp/browser-app/bundle.ts';
import { PASSWORD } from '../idp/support.ts';

const BOB_SECRET = 'only for bob';
const ALICE_SECRET = 'only for alice';

interface Attack {
  origin: string;
  readAccount: string;
  createCredentials: string;
  readPrivate: string;
}

/**
 * What each of alice's pages runs: every attempt records what happened; `window.attack` holds the record.
 * `server` is the origin of the identity provider, `bobPrivate` bob's private resource, `consent` the consent
 * page of a token for an app, which it frames.
 */
function attackScript(server: string, bobPrivate: string, consent: string): string {
  return `(async () => {
  const results = { origin: self.origin };
  const attempt = async (name, run) => {
    try { results[name] = await run(); } catch (error) { results[name] = 'failed: ' + error.message; }
  };
  let csrf = '';
  await attempt('readAccount', async () => {
    const response = await fetch(${JSON.stringify(server + '/idp/account')}, { credentials: 'include' });
    const text = await response.text();
    csrf = (/name="csrf" value="([^"]+)"/.exec(text) || [])[1] || '';
    return text.includes('bob@example.org') ? 'read the account page' : 'answered ' + response.status;
  });
  await attempt('createCredentials', async () => {
    const response = await fetch(${JSON.stringify(server + '/idp/account/credentials')}, { method: 'POST', credentials: 'include', body: new URLSearchParams({ csrf, name: 'taken over' }) });
    return 'answered ' + response.status;
  });
  await attempt('readPrivate', async () => {
    const response = await fetch(${JSON.stringify(bobPrivate)}, { credentials: 'include' });
    const text = await response.text();
    return text.includes(${JSON.stringify(BOB_SECRET)}) ? 'read the private resource' : 'answered ' + response.status;
  });
  const frame = document.createElementNS('http://www.w3.org/1999/xhtml', 'iframe');
  frame.src = ${JSON.stringify(consent)};
  (document.getElementById('frame-host') || document.body).appendChild(frame);
  await new Promise((resolve) => { frame.onload = resolve; setTimeout(resolve, 5000); });
  self.attack = results;
})();`;
}

const htmlPage = (script: string) => `<!doctype html><html><head><meta charset="utf-8"><title>A page</title></head><body><p>Nothing to see.</p><script>${script}</script></body></html>`;
const svgImage = (script: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><circle cx="50" cy="50" r="40"/><foreignObject id="frame-host" x="0" y="100" width="600" height="300"/><script><![CDATA[${script}]]></script></svg>`;

/** A guestbook: anyone may append to it and read what it holds; only its owner changes it. */
const GUESTBOOK_ACL = `@prefix acl: <http://www.w3.org/ns/auth/acl#>. @prefix foaf: <http://xmlns.com/foaf/0.1/>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#post> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:mode acl:Read, acl:Append.
<#read> a acl:Authorization; acl:agentClass foaf:Agent; acl:default <./>; acl:mode acl:Read.
`;

/** The servers of one mode, as a browser names them. */
interface World {
  svc: RunningSvc;
  /** The identity provider's origin. */
  server: string;
  /** The URL of a pod's resource: `/x` of pod `name`. */
  podUrl(name: string, path: string): string;
  /** Node's way to the server, with the host names the browser uses. */
  fetch: typeof fetch;
}

async function createAccount(world: World, name: string): Promise<string> {
  const created = await world.fetch(`${world.server}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, email: `${name}@example.org`, password: PASSWORD }) });
  if (created.status !== 201) throw new Error(`${name}: ${created.status} ${await created.text()}`);
  const login = await world.fetch(`${world.server}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `${name}@example.org`, password: PASSWORD }) });
  return (await login.json()).access_token;
}

async function put(world: World, url: string, token: string, type: string, body: string): Promise<void> {
  const response = await world.fetch(url, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
  if (response.status !== 201 && response.status !== 204) throw new Error(`PUT ${url}: ${response.status} ${await response.text()}`);
}

/** Alice's three pages (each running the attack), bob's private resource; answers the pages' URLs. */
async function stageAttack(world: World): Promise<{ html: string; svg: string; guestbook: string }> {
  const alice = await createAccount(world, 'alice');
  const bob = await createAccount(world, 'bob');
  const bobPrivate = world.podUrl('bob', '/private/secret.txt');
  await put(world, bobPrivate, bob, 'text/plain', BOB_SECRET);
  const consent = `${world.server}/idp/oauth/authorize?${new URLSearchParams({ client_id: 'https://app.example', redirect_uri: 'https://app.example/', response_type: 'token', scope: 'read' })}`;
  const script = attackScript(world.server, bobPrivate, consent);
  const html = world.podUrl('alice', '/public/page.html');
  const svg = world.podUrl('alice', '/public/image.svg');
  await put(world, html, alice, 'text/html', htmlPage(script));
  await put(world, svg, alice, 'image/svg+xml', svgImage(script));
  await put(world, world.podUrl('alice', '/guestbook/.acl'), alice, 'text/turtle', GUESTBOOK_ACL);
  const posted = await world.fetch(world.podUrl('alice', '/guestbook/'), { method: 'POST', headers: { 'content-type': 'text/html' }, body: htmlPage(script) });
  if (posted.status !== 201) throw new Error(`anonymous POST: ${posted.status} ${await posted.text()}`);
  return { html, svg, guestbook: new URL(posted.headers.get('location')!, world.podUrl('alice', '/guestbook/')).href };
}

/** A browser context in which bob is logged in at the identity provider (its session cookie is set). */
async function bobLoggedIn(browser: Browser, world: World): Promise<BrowserContext> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${world.server}/idp/auth`);
  await page.fill('#email', 'bob@example.org');
  await page.fill('#password', PASSWORD);
  await page.click('#login-form button[type=submit]');
  await page.waitForURL(`${world.server}/idp/account`);
  await page.close();
  return context;
}

/** Bob's client credentials, as the JSON API lists them: the attack must have made none. */
async function credentialsOfBob(world: World): Promise<unknown[]> {
  const response = await world.fetch(`${world.server}/idp/client-credentials`, { headers: { authorization: `Basic ${btoa(`bob@example.org:${PASSWORD}`)}` } });
  return response.json();
}

async function attackResults(target: Page | ReturnType<Page['frame']> & object): Promise<Attack> {
  await target.waitForFunction(() => (self as unknown as { attack?: unknown }).attack !== undefined, null, { timeout: 45_000 });
  return target.evaluate(() => (self as unknown as { attack: Attack }).attack);
}

/** Whether any frame of the page shows a form of the identity provider (the framed consent page). */
async function framedIdpForms(page: Page, server: string): Promise<number> {
  let forms = 0;
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || !frame.url().startsWith(server)) continue;
    forms += await frame.locator('form').count().catch(() => 0);
  }
  return forms;
}

interface ConsentWalk {
  /** Where the browser ends. */
  url: string;
  consentShown: boolean;
  /** Requests for alice's pages after the Allow (where an answer sent to them could be read). */
  alicePagesAfter: string[];
}

/**
 * The page sends the browser to `authorize`; bob, who trusts the server, clicks Allow if a consent page
 * comes, and the browser goes where the answer sends it.
 */
async function throughConsent(page: Page, authorize: string): Promise<ConsentWalk> {
  const self = page.url();
  await page.evaluate((url) => {
    location.href = url;
  }, authorize);
  await page.waitForURL((url) => url.href !== self);
  await page.waitForLoadState();
  const allow = page.locator('button[value=allow]');
  const consentShown = (await allow.count()) > 0;
  const alicePagesAfter: string[] = [];
  if (consentShown) {
    page.on('request', (request) => {
      if (request.url().includes('/alice/')) alicePagesAfter.push(request.url());
    });
    await allow.click();
    await page.waitForURL((url) => !url.pathname.startsWith('/idp/'));
    await page.waitForLoadState('networkidle');
  }
  return { url: page.url(), consentShown, alicePagesAfter };
}

/** The page asks /oauth/authorize for a token for an app on the server itself (`clientId`), sent back to the page. */
const tokenThroughAuthorize = (page: Page, server: string, clientId: string) =>
  throughConsent(page, `${server}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: page.url(), response_type: 'token', scope: 'read write' })}`);

/** The page asks the identity provider (Solid-OIDC) for a login of bob sent to `redirectUri`, as `clientId`, with a PKCE challenge of its own. */
const solidLoginThroughAuthorize = (page: Page, server: string, clientId: string, redirectUri: string) =>
  throughConsent(page, `${server}/idp/auth?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid webid offline_access', state: 'taken', code_challenge: 'A'.repeat(43), code_challenge_method: 'S256' })}`);

/** Each attempt is its own assertion: one that succeeds does not hide the others. */
function expectAttackFailed(attack: Attack, server: string): void {
  expect.soft(attack.origin, 'the page runs with the origin of the identity provider').not.toBe(server);
  expect.soft(attack.readAccount, "the page read bob's account page").not.toBe('read the account page');
  expect.soft(attack.createCredentials, 'the page made client credentials for bob').not.toBe('answered 201');
  expect.soft(attack.readPrivate, "the page read bob's private resource").not.toBe('read the private resource');
}

describe.skipIf(!hasChromium)('stored pages cannot act with a logged-in visitor (issue 28)', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  describe('path mode (svc start --idp --databrowser)', () => {
    let world: World;
    let pages: { html: string; svg: string; guestbook: string };
    let bob: BrowserContext;

    beforeAll(async () => {
      const svc = await startSvc(['--idp', '--databrowser', '--quiet']);
      world = { svc, server: svc.base, podUrl: (name, path) => `${svc.base}/${name}${path}`, fetch };
      pages = await stageAttack(world);
      bob = await bobLoggedIn(browser, world);
    }, 120_000);

    afterAll(async () => {
      await bob?.close();
      await world?.svc.stop();
    });

    for (const kind of ['html', 'svg', 'guestbook'] as const) {
      it(`alice's ${kind} page reads nothing of bob's, makes nothing for him, and shows no framed consent page`, async () => {
        const page = await bob.newPage();
        await page.goto(pages[kind]);
        const attack = await attackResults(page);
        expectAttackFailed(attack, world.server);
        expect(attack.origin).toBe('null');
        expect(await framedIdpForms(page, world.server), 'the consent page was framed').toBe(0);
        expect(await credentialsOfBob(world)).toEqual([]);
        await page.close();
      }, 60_000);

      it(`alice's ${kind} page gets no token through /oauth/authorize, even with bob clicking Allow`, async () => {
        const page = await bob.newPage();
        await page.goto(pages[kind]);
        const { url, consentShown } = await tokenThroughAuthorize(page, world.server, world.server);
        expect(consentShown, 'a consent page was shown for the server itself').toBe(false);
        expect(url).not.toContain('access_token');
        expect(await page.locator('body').textContent()).toContain('is on this server');
        await page.close();
      }, 60_000);
    }

    for (const kind of ['html', 'svg', 'guestbook'] as const) {
      it(`alice's ${kind} page can register no client for itself, and gets no login of bob's sent to itself through /idp/auth`, async () => {
        const page = await bob.newPage();
        await page.goto(pages[kind]);
        const registration = await page.evaluate(async (server) => {
          const response = await fetch(`${server}/idp/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [location.href], client_name: 'Notes' }) });
          return { status: response.status, error: (await response.json()).error };
        }, world.server);
        expect(registration).toEqual({ status: 400, error: 'invalid_redirect_uri' });
        const publicClient = 'http://www.w3.org/ns/solid/terms#PublicOidcClient';
        const { url, consentShown } = await solidLoginThroughAuthorize(page, world.server, publicClient, pages[kind]);
        expect(consentShown, 'a consent page was shown for a login sent to a stored page').toBe(false);
        expect(url).not.toContain('code=');
        expect(await page.locator('body').textContent()).toContain("is on this server's own origin");
        await page.close();
      }, 60_000);
    }

    it("alice's page starting a login of the data browser (the first-party client) gets no code: it lands on the server's callback, which keeps it", async () => {
      const page = await bob.newPage();
      await page.goto(pages.html);
      const { url, consentShown, alicePagesAfter } = await solidLoginThroughAuthorize(page, world.server, `${world.server}/.databrowser/id`, `${world.server}/.databrowser/callback`);
      // Bob sees the data browser's consent page and allows it; the code goes to the callback page only.
      expect(consentShown).toBe(true);
      expect(new URL(url).pathname).toBe('/.databrowser/callback');
      await page.locator('#svc-callback-status.error').waitFor();
      expect(page.url(), 'the code stayed in the address bar').toBe(`${world.server}/.databrowser/callback`);
      expect(alicePagesAfter, 'a page of alice was loaded after the Allow').toEqual([]);
      await page.close();
    }, 60_000);

    it("the data browser frames alice's page as mashlib does (allow-same-origin), and the page still runs in an origin of its own", async () => {
      const page = await bob.newPage();
      await page.goto(world.podUrl('alice', '/public/'));
      await page.locator('#OutlineView').waitFor({ state: 'attached' });
      // The data browser's own page reaches no page of the identity provider either.
      const fromWrapper = await page.evaluate(async (url) => {
        const response = await fetch(url);
        return { status: response.status, text: await response.text() };
      }, `${world.server}/idp/account`);
      expect.soft(fromWrapper.status).toBe(403);
      expect.soft(fromWrapper.text).not.toContain('bob@example.org');
      // mashlib's humanReadablePane: <iframe sandbox="allow-scripts allow-same-origin allow-forms" src="<the resource>">.
      await page.evaluate((src) => {
        const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
        frame.name = 'stored-page';
        frame.src = src;
        document.body.appendChild(frame);
      }, pages.html);
      await page.waitForFunction(() => document.querySelector('iframe[name=stored-page]') !== null);
      const frame = await (async () => {
        for (;;) {
          const found = page.frame({ name: 'stored-page' });
          if (found && found.url() === pages.html) return found;
          await page.waitForTimeout(100);
        }
      })();
      const attack = await attackResults(frame);
      expectAttackFailed(attack, world.server);
      expect(attack.origin).toBe('null');
      expect(await credentialsOfBob(world)).toEqual([]);
      await page.close();
    }, 60_000);
  });

  describe('subdomain mode (svc start --idp --subdomains --base-domain pods.test)', () => {
    let world: World;
    let pages: { html: string; svg: string; guestbook: string };
    let bob: BrowserContext;
    let siteBrowser: Browser;

    beforeAll(async () => {
      const svc = await startSvc(['--idp', '--subdomains', '--base-domain', 'pods.test', '--quiet']);
      const port = new URL(svc.base).port;
      const server = `http://pods.test:${port}`;
      world = { svc, server, podUrl: (name, path) => `http://${name}.pods.test:${port}${path}`, fetch: loopbackFetchFor('pods.test') };
      // One site, as pods.example.org and its pods' hosts are (alice.localhost and localhost would be two): the
      // identity provider's cookie goes along with requests from a pod's page. Secure contexts, as over https.
      const origins = ['pods.test', 'alice.pods.test', 'bob.pods.test'].map((host) => `http://${host}:${port}`).join(',');
      siteBrowser = await launchChromium(['--host-resolver-rules=MAP pods.test 127.0.0.1, MAP *.pods.test 127.0.0.1', `--unsafely-treat-insecure-origin-as-secure=${origins}`]);
      pages = await stageAttack(world);
      bob = await bobLoggedIn(siteBrowser, world);
    }, 120_000);

    afterAll(async () => {
      await bob?.close();
      await siteBrowser?.close();
      await world?.svc.stop();
    });

    for (const kind of ['html', 'svg', 'guestbook'] as const) {
      it(`alice's ${kind} page reads nothing of bob's on the base domain, makes nothing for him, and shows no framed consent page`, async () => {
        const page = await bob.newPage();
        await page.goto(pages[kind]);
        const attack = await attackResults(page);
        expectAttackFailed(attack, world.server);
        // Alice's own pages run with her pod's origin; what anyone may post there runs in an opaque one.
        expect(attack.origin).toBe(kind === 'guestbook' ? 'null' : new URL(world.podUrl('alice', '/')).origin);
        expect(await framedIdpForms(page, world.server), 'the consent page was framed').toBe(0);
        expect(await credentialsOfBob(world)).toEqual([]);
        await page.close();
      }, 60_000);

      it(`alice's ${kind} page gets no token through /oauth/authorize for her pod's origin, even with bob clicking Allow`, async () => {
        const page = await bob.newPage();
        await page.goto(pages[kind]);
        const { url, consentShown } = await tokenThroughAuthorize(page, world.server, new URL(world.podUrl('alice', '/')).origin);
        expect(consentShown, "a consent page was shown for alice's pod").toBe(false);
        expect(url).not.toContain('access_token');
        expect(await page.locator('body').textContent()).toContain('is on this server');
        await page.close();
      }, 60_000);
    }

    it("an app in alice's pod keeps its origin: it uses localStorage, logs her in and reads her private resource", async () => {
      const login = await world.fetch(`${world.server}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) });
      const token = (await login.json()).access_token;
      const resource = world.podUrl('alice', '/private/app.txt');
      await put(world, resource, token, 'text/plain', ALICE_SECRET);
      await put(world, world.podUrl('alice', '/public/app/app.js'), token, 'text/javascript', await bundleBrowserApp(`${world.server}/`, resource));
      const app = world.podUrl('alice', '/public/app/index.html');
      await put(
        world,
        app,
        token,
        'text/html',
        `<!doctype html><html><head><meta charset="utf-8"><title>Pod app</title></head>
<body><button id="login">Log in</button><p id="status">loading</p><p id="webid"></p><p id="result"></p><p id="storage"></p>
<script>localStorage.setItem('visits', String(Number(localStorage.getItem('visits') || 0) + 1)); document.getElementById('storage').textContent = 'visits ' + localStorage.getItem('visits');</script>
<script type="module" src="app.js"></script></body></html>`,
      );

      const context = await siteBrowser.newContext();
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(app);
      expect(await page.locator('#storage').textContent()).toBe('visits 1');
      await page.locator('#status', { hasText: 'logged out' }).waitFor();
      await page.click('#login');
      await page.waitForURL(`${world.server}/idp/auth?**`);
      await page.fill('#email', 'alice@example.org');
      await page.fill('#password', PASSWORD);
      await page.click('#login-form button[type=submit]');
      await page.locator('button[value=allow]').waitFor();
      expect(await page.locator('body').textContent()).toContain(app);
      await page.click('button[value=allow]');
      await page.waitForURL(`${app}**`);
      await page.locator('#status', { hasText: /logged in|error/ }).waitFor({ timeout: 20_000 });
      expect(await page.locator('#status').textContent(), problems.join('\n')).toBe('logged in');
      expect(await page.locator('#webid').textContent()).toBe(world.podUrl('alice', '/#me'));
      expect(await page.locator('#result').textContent()).toBe(`200 ${ALICE_SECRET}`);
      expect(await page.locator('#storage').textContent()).toBe('visits 2');
      await context.close();
    }, 90_000);
  });
});
