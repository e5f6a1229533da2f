/**
 * The server's own HTML pages (the identity provider's, OAuth's, the "log in" answer to a private URL, the
 * data browser's return from a login) share one design: this stylesheet, one shell, one set of headers.
 * The stylesheet and every script go inline and are allowed by their hashes, so a page needs nothing from
 * any other URL (no fonts, no CDN) and works on every host that serves it (a pod's host in subdomain mode).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { escapeHtml } from './escape-html.ts';

export { escapeHtml };

/** A CSP source that allows exactly this inline script or style: the pages' are constants, so their hashes are too. */
export const hashSource = (text: string) => `'sha256-${btoa(String.fromCharCode(...sha256(new TextEncoder().encode(text))))}'`;

/**
 * One small design: readable from 320 px up (one column, 16 px text, 44 px touch targets), light and dark
 * from the system's setting, a focus ring on whatever the keyboard reaches, errors in red beside their field.
 */
export const PAGE_STYLE = `:root{color-scheme:light dark;--bg:#f4f5f9;--card:#fff;--text:#1c2230;--muted:#586174;--line:#d5d9e3;--accent:#5136c2;--on-accent:#fff;--danger:#b3261e;--danger-bg:#fdeceb;--ok:#17633a;--ok-bg:#e6f4ec;--focus:#1a6fe0}
@media (prefers-color-scheme:dark){:root{--bg:#111319;--card:#1b1e26;--text:#e9ebf1;--muted:#a6adbc;--line:#363b49;--accent:#a995ff;--on-accent:#16121f;--danger:#ff8b80;--danger-bg:#3b1c1a;--ok:#82d99a;--ok-bg:#15301f;--focus:#8cb6ff}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.site{display:flex;align-items:center;gap:.5rem;max-width:42rem;margin:0 auto;padding:1rem 1rem 0;color:var(--muted);font-size:.9rem;font-weight:600}
.site svg{width:1.6rem;height:1.6rem;flex:none}
main{max-width:42rem;margin:.75rem auto 2.5rem;padding:1.75rem;background:var(--card);border:1px solid var(--line);border-radius:14px}
@media (max-width:40rem){.site{padding:.75rem .75rem 0}main{margin:.5rem .5rem 1.5rem;padding:1.1rem}}
h1{font-size:1.55rem;line-height:1.25;margin:0 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;line-height:1.3;margin:2rem 0 .5rem;padding-top:1.25rem;border-top:1px solid var(--line)}
p,ul,dl{margin:.6rem 0}
a{color:var(--accent);text-underline-offset:.15em}
.lead{font-size:1.05rem}
.note,.hint{color:var(--muted);font-size:.93rem}
.hint{margin:.15rem 0 .35rem}
.field{margin:1rem 0}
label{display:block;font-weight:600;margin-bottom:.2rem}
input:not([type=hidden]){display:block;width:100%;min-height:2.75rem;font:inherit;padding:.55rem .75rem;border:1px solid var(--line);border-radius:9px;background:var(--card);color:var(--text)}
input[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.field-error{color:var(--danger);font-weight:600;font-size:.95rem;margin:.35rem 0 0}
button,.button{display:inline-flex;align-items:center;justify-content:center;gap:.4rem;min-height:2.75rem;font:inherit;font-weight:600;line-height:1.2;padding:.55rem 1.15rem;border-radius:9px;border:2px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;border-color:var(--danger);color:var(--danger)}
button.small{min-height:2.25rem;padding:.3rem .8rem;font-size:.93rem}
button:hover,.button:hover{filter:brightness(1.08)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
input:focus-visible{outline-offset:0}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin:1.25rem 0 .5rem}
.actions form{margin:0}
.alert,.notice{padding:.75rem 1rem;border-radius:9px;margin:1rem 0;border:1px solid}
.alert{border-color:var(--danger);background:var(--danger-bg);color:var(--text)}
.notice{border-color:var(--ok);background:var(--ok-bg);color:var(--text)}
.alert p,.notice p{margin:.25rem 0}
code{font:.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere;background:color-mix(in srgb,var(--muted) 14%,transparent);padding:.08em .35em;border-radius:5px}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.45rem 1.1rem;padding:.9rem 1rem;border:1px solid var(--line);border-radius:10px}
.facts dt{font-weight:600;color:var(--muted)}
.facts dd{margin:0;min-width:0}
@media (max-width:40rem){.facts{grid-template-columns:1fr;gap:.1rem}.facts dd{margin-bottom:.5rem}}
.scopes{padding-left:1.2rem}
.scopes li{margin:.3rem 0}
.table-wrap{position:relative;overflow-x:auto;margin:.5rem 0}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{text-align:left;padding:.5rem .5rem .5rem 0;border-bottom:1px solid var(--line);vertical-align:middle}
th{color:var(--muted);font-weight:600}
td form{margin:0}
time{white-space:nowrap}
.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);font-size:.9rem;margin:1.5rem 0 1rem}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--line)}
.status{min-height:1.5em}
.status.error{color:var(--danger);font-weight:600}
footer{max-width:42rem;margin:0 auto 2rem;padding:0 1rem;color:var(--muted);font-size:.85rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
[hidden]{display:none!important}
`;

/** The mark at the top of every page (inline, so it needs no request): a pod holding linked data. */
export const LOGO_SVG = `<svg viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="#5136c2"/><circle cx="11" cy="12" r="3.2" fill="#fff"/><circle cx="21.5" cy="10.5" r="2.6" fill="#fff"/><circle cx="19" cy="21.5" r="3.6" fill="#fff"/><path d="M11 12 21.5 10.5M11 12l8 9.5M21.5 10.5 19 21.5" stroke="#fff" stroke-width="1.6" fill="none"/></svg>`;

const STYLE_SOURCE = hashSource(PAGE_STYLE);

/**
 * The headers of every page of the identity provider and OAuth: never cached, never framed (`frame-ancestors`,
 * and `X-Frame-Options` for older browsers), in a browsing context group of their own (a window another page
 * opened gets no handle on them), with only the page's own scripts and its style.
 */
export function pageHeaders(policy: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Referrer-Policy': 'same-origin',
    'Content-Security-Policy': policy,
  };
}

export interface PageOptions {
  title: string;
  /** Trusted HTML built from escaped parts. */
  body: string;
  status?: number;
  headers?: Record<string, string>;
  /** Inline scripts the page runs (constants): each is allowed by its hash, and may fetch from the page's origin. */
  scripts?: readonly string[];
}

/** A whole page in the shared design. */
export function htmlPage(options: PageOptions): Response {
  const scripts = options.scripts ?? [];
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(options.title)}</title><style>${PAGE_STYLE}</style></head>
<body><header class="site">${LOGO_SVG}<span>Solid pod server</span></header>
<main><h1>${escapeHtml(options.title)}</h1>
${options.body}
</main>
${scripts.map((script) => `<script>${script}</script>`).join('\n')}</body></html>
`;
  const scriptPolicy = scripts.length > 0 ? ` script-src ${scripts.map(hashSource).join(' ')}; connect-src 'self';` : '';
  const policy = `default-src 'none';${scriptPolicy} style-src ${STYLE_SOURCE}; base-uri 'none'; form-action 'self' http: https:; frame-ancestors 'none'`;
  return new Response(html, { status: options.status ?? 200, headers: { ...pageHeaders(policy), ...options.headers } });
}

/** Hidden form fields. */
export function hiddenFields(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}

export interface FieldOptions {
  id: string;
  label: string;
  /** The form field's name; none for an input a script reads. */
  name?: string;
  type?: string;
  value?: string;
  hint?: string;
  /** What is wrong with this field's value: shown under it and announced. */
  error?: string;
  /** Further trusted attributes (`required`, `autocomplete="..."`, `minlength="8"`). */
  attributes?: string;
}

/** A labelled input with its hint and its error beside it, both tied to it by `aria-describedby`. */
export function field(options: FieldOptions): string {
  const hintId = `${options.id}-hint`;
  const errorId = `${options.id}-error`;
  const described = [options.hint ? hintId : '', options.error ? errorId : ''].filter(Boolean).join(' ');
  const input = [
    `<input id="${escapeHtml(options.id)}"`,
    options.name ? ` name="${escapeHtml(options.name)}"` : '',
    ` type="${escapeHtml(options.type ?? 'text')}"`,
    options.value !== undefined ? ` value="${escapeHtml(options.value)}"` : '',
    options.attributes ? ` ${options.attributes}` : '',
    described ? ` aria-describedby="${described}"` : '',
    options.error ? ' aria-invalid="true"' : '',
    '>',
  ].join('');
  return `<div class="field"><label for="${escapeHtml(options.id)}">${escapeHtml(options.label)}</label>
${options.hint ? `<p class="hint" id="${hintId}">${escapeHtml(options.hint)}</p>\n` : ''}${input}${options.error ? `\n<p class="field-error" id="${errorId}" role="alert">${escapeHtml(options.error)}</p>` : ''}</div>`;
}

/** A message for the whole form or page: an error (`alert`) or news (`status`). */
export function messageBox(kind: 'error' | 'status', text: string): string {
  return kind === 'error' ? `<div class="alert" role="alert"><p>${escapeHtml(text)}</p></div>` : `<div class="notice" role="status"><p>${escapeHtml(text)}</p></div>`;
}
