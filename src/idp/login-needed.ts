/**
 * With `--idp` and no data browser: a person who opens a private resource in a browser window (typed it,
 * bookmarked it, followed a link) gets a page in words instead of problem+json: what happened, and the way to
 * the login. The status stays 401 or 403, with its challenge. Apps and curl keep the problem+json answer.
 */
import type { FeatureCode } from '../features/feature.ts';
import { escapeHtml, htmlPage } from '../http/html.ts';
import { isWindowNavigation } from '../http/navigation.ts';
import { endpointOf, issuerFor } from './issuer.ts';
import { AUTH_PATH } from './paths.ts';

/** Headers of the refusal that still say something about the resource. */
const KEPT_HEADERS = ['www-authenticate', 'vary', 'link', 'wac-allow'];

function body(status: 401 | 403, url: string, issuer: string): string {
  const login = endpointOf(issuer, AUTH_PATH);
  const facts = `<dl class="facts"><dt>Address</dt><dd><code>${escapeHtml(url)}</code></dd>
<dt>Answer</dt><dd>${status === 401 ? '401 Unauthorized: no login came with the request' : '403 Forbidden: the login that came with the request may not read it'}</dd></dl>`;
  if (status === 403) {
    return `<p class="lead">The server knows who you are, but that identity may not read this resource.</p>
${facts}
<p>Ask the resource's owner for access, or open it in a Solid app logged in as someone who may read it.</p>`;
  }
  return `<p class="lead">This resource is not public.</p>
${facts}
<p>A browser sends no login when you type an address or follow a link. Open the resource in a Solid app that logs you in; this server is an identity provider (<code>${escapeHtml(issuer)}</code>) such apps can log you in with.</p>
<div class="actions"><a class="button" href="${escapeHtml(login)}">Log in</a></div>
<p class="note">Logging in here opens your account page: the browser window itself still sends no login. A server started with its data browser (<code>--databrowser</code>) shows private resources after the login, on this very address.</p>`;
}

export const loginNeededCode: FeatureCode = {
  create({ config }) {
    return {
      routes(app) {
        app.on(['GET', 'HEAD'], '*', async (c, next) => {
          await next();
          const status = c.res.status;
          if ((status !== 401 && status !== 403) || !isWindowNavigation(c.req.raw)) return;
          await c.res.body?.cancel();
          const title = status === 401 ? 'Log in to see this' : 'Not yours to read';
          const page = htmlPage({ title, body: body(status, c.req.url, issuerFor(config, c.req.raw)), status });
          // Hono copies the old answer's headers onto the new one: only those about the resource stay.
          const old = c.res.headers;
          for (const name of [...old.keys()]) if (!KEPT_HEADERS.includes(name)) old.delete(name);
          c.res = c.req.method === 'HEAD' ? new Response(null, { status, headers: page.headers }) : page;
        });
      },
    };
  },
};
