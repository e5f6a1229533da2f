/**
 * `--databrowser`, `--databrowser-cdn`, `--databrowser-module`: a browser navigating to an RDF resource or
 * container (it ranks `text/html` above every RDF type) gets the wrapper page that loads the data browser;
 * every other client keeps getting RDF. A navigation the resource refuses (401, 403) gets the wrapper too,
 * with the status unchanged and the login on the page. Pod roots stay profile pages. With `--ui-shell`, a
 * small bar of navigation, the current URL and login/logout goes around it.
 */
import type { Context } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import { pageHeaders } from '../http/html.ts';
import { isWindowNavigation, prefersHtml } from '../http/navigation.ts';
import { HttpProblem } from '../http/problem.ts';
import { issuerFor } from '../idp/issuer.ts';
import { localPathOf } from '../pods/subdomains.ts';
import { isRdfType } from '../rdf/media.ts';
import { mediaTypeForName } from '../storage/media-types.ts';
import { storagePathFromUrlPath } from '../storage/paths.ts';
import { ASSET_PREFIX, CALLBACK_PATH, CLIENT_ID_PATH, clientDocument } from './client.ts';
import { CALLBACK_SCRIPT, SHELL_SCRIPT, SHELL_STYLE, START_SCRIPT } from './scripts.ts';
import { databrowserModeOf } from './mode.ts';
import { callbackPage, wrapperPage, wrapperPolicy } from './wrapper.ts';

/** A file name of mashlib's `dist/` (no folders, no dot-files). */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

const OWN_ASSETS: Record<string, { body: string; type: string }> = {
  'start.js': { body: START_SCRIPT, type: 'text/javascript; charset=utf-8' },
  'callback.js': { body: CALLBACK_SCRIPT, type: 'text/javascript; charset=utf-8' },
  'shell.js': { body: SHELL_SCRIPT, type: 'text/javascript; charset=utf-8' },
  'shell.css': { body: SHELL_STYLE, type: 'text/css; charset=utf-8' },
};

/** Headers of a representation (or of a problem) that do not describe the wrapper page. */
const REPRESENTATION_HEADERS = ['content-length', 'etag', 'last-modified', 'accept-ranges', 'content-range', 'content-language'];

/** What mashlib asks an old Node Solid Server for, to learn whether its cookie session is on (pod hosts under `.localhost` only). */
const NSS_PASSWORD_PAGE = '/account/password/change';

const noSuchAsset = () => new HttpProblem(404, 'There is no such data browser file.', { type: 'not-found' });

export const databrowserCode: FeatureCode = {
  create(context) {
    const { config, platform } = context;
    const mode = databrowserModeOf(config);
    // Local files without a reader were refused at start (descriptor.ts).
    const readAsset = platform.databrowserAsset;
    const policy = wrapperPolicy(mode);
    // The data browser logs in at the IdP, which is on the base domain in subdomain mode, not the page's host.
    const issuerOf = (request: Request) => (config.idp ? issuerFor(config, request) : undefined);

    async function asset(c: Context): Promise<Response> {
      const name = c.req.param('name') ?? '';
      const own = OWN_ASSETS[name];
      if (own) return new Response(own.body, { headers: { 'Content-Type': own.type, 'Cache-Control': 'no-cache' } });
      if (mode.kind !== 'local' || !ASSET_NAME.test(name)) throw noSuchAsset();
      const bytes = await readAsset!(name);
      if (!bytes) throw noSuchAsset();
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': mediaTypeForName(name), 'Cache-Control': 'public, max-age=3600' } });
    }

    /** The wrapper in place of the answer `c.res` (its status and headers kept, its body and representation headers not). */
    async function wrap(c: Context, refused?: 401 | 403): Promise<void> {
      await c.res.body?.cancel();
      const headers = c.res.headers;
      for (const name of REPRESENTATION_HEADERS) headers.delete(name);
      headers.set('Content-Type', 'text/html; charset=utf-8');
      headers.set('Content-Security-Policy', policy);
      headers.set('Cache-Control', refused ? 'no-store' : 'no-cache');
      const page = c.req.method === 'HEAD' ? null : wrapperPage(mode, c.req.url, { shell: config.uiShell, issuer: issuerOf(c.req.raw), ...(refused && { refused }) });
      c.res = new Response(page, { status: c.res.status, headers });
    }

    return {
      routes(app) {
        if (mode.kind !== 'module') {
          app.on(['GET', 'HEAD'], CALLBACK_PATH, (c) => {
            const headers = { ...pageHeaders(policy), 'Referrer-Policy': 'no-referrer' };
            return new Response(c.req.method === 'HEAD' ? null : callbackPage(mode, issuerOf(c.req.raw)), { headers });
          });
          app.on(['GET', 'HEAD'], CLIENT_ID_PATH, (c) => Response.json(clientDocument(new URL(c.req.url).origin), { headers: { 'Content-Type': 'application/ld+json', 'Cache-Control': 'public, max-age=3600' } }));
        }
        app.on(['GET', 'HEAD'], `${ASSET_PREFIX}:name`, asset);
        // mashlib's probe of an old server's cookie session: anything but 403 means "none", so answer what a
        // person opening it would want, unless the path holds a stored resource.
        app.on(['GET', 'HEAD'], NSS_PASSWORD_PAGE, async (c, next) => {
          const url = new URL(c.req.url);
          if (await platform.storage.head(storagePathFromUrlPath(localPathOf(config, url)))) return next();
          if (!config.idp) throw new HttpProblem(404, 'This server has no password page: it runs without its identity provider (--idp).', { type: 'not-found' });
          const account = new URL('/idp/account', issuerFor(config, c.req.raw));
          return new Response(null, { status: 303, headers: { Location: account.href, 'Cache-Control': 'no-store' } });
        });
        app.on(['GET', 'HEAD'], '*', async (c, next) => {
          const request = c.req.raw;
          const wantsPage = prefersHtml(request.headers.get('accept'));
          const navigation = isWindowNavigation(request);
          if (!wantsPage && !navigation) return next();
          // The browser may hold the RDF the data browser fetched at this URL and ask for the page with that
          // representation's validator (Vary: Accept makes it revalidate, not refetch): a 304 would show it the
          // RDF. The page is another representation, so the page request is answered whole.
          if (wantsPage && (request.headers.has('if-none-match') || request.headers.has('if-modified-since'))) {
            const headers = new Headers(request.headers);
            headers.delete('if-none-match');
            headers.delete('if-modified-since');
            c.req.raw = new Request(request.url, { method: request.method, headers });
          }
          await next();
          const status = c.res.status;
          // What would have been RDF becomes the wrapper: pod roots' profile pages, files and other errors stay as they are.
          if (status === 200 && wantsPage && isRdfType(c.res.headers.get('content-type') ?? undefined)) await wrap(c);
          else if ((status === 401 || status === 403) && navigation) await wrap(c, status);
        });
      },
    };
  },
};
