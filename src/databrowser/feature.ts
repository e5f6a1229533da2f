/**
 * `--databrowser`, `--databrowser-cdn`, `--databrowser-module`: a browser navigating to an RDF resource or
 * container (it ranks `text/html` above every RDF type) gets the wrapper page that loads the data browser;
 * every other client keeps getting RDF. Pod roots stay profile pages. With `--ui-shell`, a small bar of
 * navigation, the current URL and login/logout goes around it.
 */
import type { Context } from 'hono';
import { ConfigError } from '../config/resolve.ts';
import type { Feature } from '../features/feature.ts';
import { HttpProblem } from '../http/problem.ts';
import { isRdfType } from '../rdf/media.ts';
import { mediaTypeForName } from '../storage/media-types.ts';
import { prefersHtml } from './prefers-html.ts';
import { issuerFor } from '../idp/issuer.ts';
import { SHELL_SCRIPT, SHELL_STYLE, START_SCRIPT } from './scripts.ts';
import { ASSET_PREFIX, databrowserModeOf, wrapperPage, wrapperPolicy } from './wrapper.ts';

/** A file name of mashlib's `dist/` (no folders, no dot-files). */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

const OWN_ASSETS: Record<string, { body: string; type: string }> = {
  'start.js': { body: START_SCRIPT, type: 'text/javascript; charset=utf-8' },
  'shell.js': { body: SHELL_SCRIPT, type: 'text/javascript; charset=utf-8' },
  'shell.css': { body: SHELL_STYLE, type: 'text/css; charset=utf-8' },
};

/** Headers of a representation that do not describe the wrapper page. */
const REPRESENTATION_HEADERS = ['content-length', 'etag', 'last-modified', 'accept-ranges', 'content-range'];

const noSuchAsset = () => new HttpProblem(404, 'There is no such data browser file.', { type: 'not-found' });

export const databrowserFeature: Feature = {
  name: 'databrowser',
  enabled: (config) => config.databrowser || config.databrowserCdn || Boolean(config.databrowserModule) || config.uiShell,
  create(context) {
    const { config, platform } = context;
    const mode = databrowserModeOf(config);
    const readAsset = platform.databrowserAsset;
    if (mode.kind === 'local' && !readAsset) {
      throw new ConfigError(
        `--databrowser serves the data browser's files from the server, which the ${platform.runtime} runtime cannot read: use --databrowser-cdn (or --databrowser-module <url>) there.`,
      );
    }
    const policy = wrapperPolicy(mode);
    const shell = { on: config.uiShell, idp: config.idp };

    async function asset(c: Context): Promise<Response> {
      const name = c.req.param('name') ?? '';
      const own = OWN_ASSETS[name];
      if (own) return new Response(own.body, { headers: { 'Content-Type': own.type, 'Cache-Control': 'no-cache' } });
      if (mode.kind !== 'local' || !ASSET_NAME.test(name)) throw noSuchAsset();
      const bytes = await readAsset!(name);
      if (!bytes) throw noSuchAsset();
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'Content-Type': mediaTypeForName(name), 'Cache-Control': 'public, max-age=3600' } });
    }

    return {
      routes(app) {
        app.on(['GET', 'HEAD'], `${ASSET_PREFIX}:name`, asset);
        app.on(['GET', 'HEAD'], '*', async (c, next) => {
          if (!prefersHtml(c.req.header('accept') ?? null)) return next();
          await next();
          // Only what would have been RDF becomes the wrapper: pod roots' profile pages, files and errors stay as they are.
          if (c.res.status !== 200 || !isRdfType(c.res.headers.get('content-type') ?? undefined)) return;
          await c.res.body?.cancel();
          const headers = c.res.headers;
          for (const name of REPRESENTATION_HEADERS) headers.delete(name);
          headers.set('Content-Type', 'text/html; charset=utf-8');
          headers.set('Content-Security-Policy', policy);
          headers.set('Cache-Control', 'no-cache');
          // The shell logs in at the IdP, which is on the base domain in subdomain mode, not the page's host.
          const page = c.req.method === 'HEAD' ? null : wrapperPage(mode, c.req.url, shell.idp ? { ...shell, issuer: issuerFor(config, c.req.raw) } : shell);
          c.res = new Response(page, { status: 200, headers });
        });
      },
    };
  },
};
