/**
 * `--live-reload`: every HTML page served gets a small script that opens a WebSocket naming the page's path
 * and reloads when that path (or, for a container, a member of it) changes: writes over HTTP arrive through
 * `afterWrite`, changes made on disk (git, an editor) through the runtime's storage watcher, when it has one.
 */
import type { FeatureCode } from '../features/feature.ts';
import { errorToResponse } from '../http/errors.ts';
import { HttpProblem } from '../http/problem.ts';
import { isServerPrivatePath } from '../ldp/auxiliary.ts';
import type { Change } from '../ldp/context.ts';
import { NotificationHub, type Subscriber } from '../notifications/hub.ts';
import { sendOrDrop, type UpgradeAnswer } from '../notifications/socket.ts';
import { essenceOf } from '../storage/media-types.ts';
import { podHostsOf, type PodHosts } from '../pods/subdomains.ts';
import { storagePathFromUrlPath } from '../storage/paths.ts';

export const LIVE_RELOAD_SCRIPT_PATH = '/.live-reload.js';
export const LIVE_RELOAD_SOCKET_PATH = '/.live-reload';
/** Pages larger than this are served without the script rather than read into memory to add it. */
const MAX_INJECTED_PAGE_BYTES = 4 * 1024 * 1024;

/** Reconnects after a server restart, so a page left open keeps reloading. */
const CLIENT_SCRIPT = `(() => {
  const url = new URL(${JSON.stringify(LIVE_RELOAD_SOCKET_PATH)}, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('path', location.pathname);
  const connect = () => {
    const socket = new WebSocket(url);
    socket.onopen = () => (document.documentElement.dataset.liveReload = 'connected');
    socket.onmessage = () => location.reload();
    socket.onclose = () => setTimeout(connect, 2000);
  };
  connect();
})();
`;

const SCRIPT_TAG = `<script src="${LIVE_RELOAD_SCRIPT_PATH}"></script>`;

/** The page with the script tag before its closing `</body>`, or at the end when it has none. */
export function withLiveReloadScript(html: string): string {
  const end = html.toLowerCase().lastIndexOf('</body>');
  return end < 0 ? html + SCRIPT_TAG : html.slice(0, end) + SCRIPT_TAG + html.slice(end);
}

/** The storage path of the page the socket watches: its URL path, on the socket's host (a pod's, in subdomain mode). */
function shownPath(url: URL, hosts: PodHosts | null): string {
  const shown = url.searchParams.get('path') ?? '';
  const path = storagePathFromUrlPath(hosts ? hosts.localPathOn(url.hostname, shown) : shown);
  if (isServerPrivatePath(path)) throw new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' });
  return path;
}

export const liveReloadCode: FeatureCode = {
  create(context) {
    const hub = new NotificationHub({ stateOf: async () => undefined, now: context.now, onError: () => {} });
    const publish = (changes: readonly Change[]) => hub.publish(changes);

    async function upgrade(request: Request): Promise<UpgradeAnswer | null> {
      const url = new URL(request.url);
      if (url.pathname !== LIVE_RELOAD_SOCKET_PATH) return null;
      let path: string;
      try {
        path = shownPath(url, podHostsOf(context.config));
        // Only a page the caller may read is watched: the socket tells when it changes, nothing more.
        await context.access.require(await context.authenticate(request), [{ path, anyOf: ['read'] }]);
      } catch (error) {
        return { refuse: errorToResponse(error, context.log) };
      }
      return {
        accept(socket) {
          const subscriber: Subscriber = { deliver: () => sendOrDrop(socket, 'reload') };
          hub.subscribe(path, subscriber);
          return { message: () => {}, closed: () => hub.unsubscribe(path, subscriber) };
        },
      };
    }

    return {
      routes(app) {
        app.get(LIVE_RELOAD_SCRIPT_PATH, () => new Response(CLIENT_SCRIPT, { headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' } }));
        app.get('*', async (c, next) => {
          await next();
          // Hono answers HEAD through GET routes; a HEAD answer has no page to add to.
          if (c.req.method !== 'GET') return;
          const type = c.res.headers.get('content-type');
          if (c.res.status !== 200 || !type || essenceOf(type) !== 'text/html') return;
          if (Number(c.res.headers.get('content-length') ?? 0) > MAX_INJECTED_PAGE_BYTES) return;
          const page = await c.res.text();
          // Hono copies the old response's headers onto the new one: the stored length must go first.
          c.res.headers.delete('content-length');
          c.res = new Response(withLiveReloadScript(page), { status: 200, headers: c.res.headers });
        });
      },
      afterWrite: publish,
      upgrade,
      async init() {
        context.platform.watchStorage?.((paths) => publish(paths.map((path) => ({ path, kind: 'update' }))));
      },
    };
  },
};
