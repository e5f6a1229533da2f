/**
 * The HTML page a browser gets instead of RDF when the data browser is on: it loads the browser, which then
 * fetches the same URL again by content negotiation. One page and one Content-Security-Policy per mode.
 */
import { escapeHtml, LOGO_SVG, PAGE_STYLE } from '../http/html.ts';
import { ASSET_PREFIX } from './client.ts';
import type { DatabrowserMode } from './mode.ts';
import { NOTICE_STYLE } from './scripts.ts';

/** mashlib's own page body (its `databrowser.html`), which `panes.runDataBrowser()` fills. */
const MASHLIB_BODY = `<solid-ui-header id="mainSolidUiHeader" brand-link="/"><span slot="title"></span></solid-ui-header>
<div class="app-main" tabindex="-1" aria-live="polite"><div class="app-shell">
<aside id="NavMenu" class="app-nav" aria-label="Application menu" hidden><div id="NavMenuContent" class="menu-content"></div></aside>
<main id="MainContent" class="app-view"><table id="OutlineView" class="outline-view" aria-label="Resource browser"></table>
<section id="GlobalDashboard" class="global-dashboard" aria-label="Dashboard" hidden></section></main></div>
<div id="MenuOverlay" class="menu-overlay" hidden aria-hidden="true"></div></div><footer id="PageFooter" role="contentinfo"></footer>`;

const SHELL = `<nav id="svc-shell" aria-label="Server"><a id="svc-shell-home" href="/">Home</a><a id="svc-shell-up" href="..">Up</a>
<code id="svc-shell-url"></code><span id="svc-shell-user"></span><button id="svc-shell-login" type="button" hidden>Log in</button>
<button id="svc-shell-logout" type="button" hidden>Log out</button></nav>`;

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * Content-Security-Policy of the wrapper. Scripts and styles come only from the server (and the CDN or the
 * module's origin); data may be read from any pod (`connect-src *`), and mashlib's icons live on other hosts.
 */
export function wrapperPolicy(mode: DatabrowserMode): string {
  const code = mode.kind === 'cdn' ? ` ${originOf(mode.base)}` : mode.kind === 'module' ? ` ${originOf(mode.script)}` : '';
  return [
    "default-src 'self'",
    // mashlib's bundle (rdflib's parsers among it) evaluates code at run time.
    `script-src 'self'${code} 'unsafe-eval'`,
    `style-src 'self'${code} 'unsafe-inline'`,
    'img-src * data: blob:',
    `font-src 'self'${code} data:`,
    'connect-src * ws: wss:',
    'frame-src *',
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

export interface WrapperOptions {
  /** `--ui-shell`. */
  shell: boolean;
  /** This server's issuer, with `--idp` (on the base domain in subdomain mode, not the page's host). */
  issuer?: string;
  /** The resource answered 401 or 403: the page says so above the data browser and offers the login. */
  refused?: 401 | 403;
}

const issuerAttribute = (issuer: string | undefined) => (issuer ? ` data-issuer="${escapeHtml(issuer)}"` : '');

/** The notice above the data browser on a page the resource itself refused. */
function refusalNotice(status: 401 | 403, issuer: string | undefined): string {
  const text =
    status === 401
      ? 'This resource is not public: log in to see it. A typed address or a link sends no login, so the server answered 401 Unauthorized.'
      : 'The server answered 403 Forbidden: the login it was sent may not read this resource. Log in as someone who may, or ask its owner for access.';
  const action = issuer ? '<button type="button" id="svc-login">Log in</button>' : '';
  const hint = issuer ? '' : ' Use the Log in button of the data browser with your identity provider.';
  return `<div id="svc-login-needed" role="status"><p>${text}${hint} <span id="svc-login-status"></span></p>${action}</div>\n`;
}

/** The wrapper page for `title` (the resource's URL). */
export function wrapperPage(mode: DatabrowserMode, title: string, options: WrapperOptions): string {
  const head: string[] = ['<meta charset="utf-8">', '<meta name="viewport" content="width=device-width,initial-scale=1">', `<title>${escapeHtml(title)}</title>`];
  let body: string;
  if (mode.kind === 'module') {
    head.push(`<link rel="stylesheet" href="${escapeHtml(mode.stylesheet)}">`, `<script type="module" src="${escapeHtml(mode.script)}"></script>`);
    body = '<div id="mashlib"></div>';
  } else {
    const base = mode.kind === 'cdn' ? mode.base : ASSET_PREFIX;
    head.push(`<link rel="stylesheet" href="${escapeHtml(base)}mash.css">`, `<script defer src="${escapeHtml(base)}mashlib.min.js"></script>`, `<script defer src="${ASSET_PREFIX}start.js"${issuerAttribute(options.issuer)}></script>`);
    body = MASHLIB_BODY;
  }
  if (options.refused) {
    head.push(`<style>${NOTICE_STYLE}</style>`);
    body = refusalNotice(options.refused, mode.kind === 'module' ? undefined : options.issuer) + body;
  }
  if (options.shell) {
    head.push(`<link rel="stylesheet" href="${ASSET_PREFIX}shell.css">`, `<script defer src="${ASSET_PREFIX}shell.js" data-idp="${Boolean(options.issuer)}"${issuerAttribute(options.issuer)}></script>`);
    body = SHELL + body;
  }
  return `<!doctype html>\n<html lang="en"><head>${head.join('')}</head>\n<body id="PageBody" data-app-shell="databrowser">\n${body}\n</body></html>\n`;
}

/**
 * The page a login of the data browser comes back to (`/.databrowser/callback`): mashlib and the callback
 * script, which finish the login and return to the page it started from. Only the mashlib modes have it.
 */
export function callbackPage(mode: Exclude<DatabrowserMode, { kind: 'module' }>, issuer: string | undefined): string {
  const base = mode.kind === 'cdn' ? mode.base : ASSET_PREFIX;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Logging you in</title>
<style>${PAGE_STYLE}</style><script defer src="${escapeHtml(base)}mashlib.min.js"></script><script defer src="${ASSET_PREFIX}callback.js"${issuerAttribute(issuer)}></script></head>
<body><header class="site">${LOGO_SVG}<span>Solid pod server</span></header>
<main><h1>Logging you in</h1>
<p id="svc-callback-status" class="status" role="status">Finishing the login with your identity provider…</p>
<div class="actions"><a id="svc-callback-back" class="button secondary" href="/" hidden>Go back</a></div></main>
</body></html>
`;
}
