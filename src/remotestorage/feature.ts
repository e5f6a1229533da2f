/**
 * remoteStorage (draft-dejong-remotestorage-22), always on: `/storage/<user>/...` serves the documents kept
 * in the container `remotestorage/` of the user's pod, through the same storage, ACLs, quotas and
 * notifications as LDP; the WebFinger descriptor of each user links to it. See docs/remotestorage.md.
 */
import type { Context, Hono, Next } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import type { JrdLink, WebfingerAccount } from '../webfinger/webfinger.ts';
import type { remoteStorageRoute } from './route.ts';
import { STORAGE_PREFIX } from './target.ts';

/** The `<storage_api>` this server speaks. */
export const REMOTESTORAGE_VERSION = 'draft-dejong-remotestorage-22';
export const REMOTESTORAGE_REL = 'http://tools.ietf.org/id/draft-dejong-remotestorage';
/** The WebFinger property naming the OAuth implicit-grant dialog; clients send their token only when it is set. */
export const OAUTH_DIALOG_PROPERTY = 'http://tools.ietf.org/html/rfc6749#section-4.2';
/** Where the OAuth server (with --idp) shows its authorization dialog. */
export const OAUTH_AUTHORIZE_PATH = '/oauth/authorize';

/** The remoteStorage link of a user's WebFinger descriptor (draft §10). */
export function remoteStorageLink(account: WebfingerAccount, withOAuth: boolean): JrdLink {
  return {
    rel: REMOTESTORAGE_REL,
    href: `${account.origin}${STORAGE_PREFIX}${encodeURIComponent(account.user)}`,
    properties: {
      'http://remotestorage.io/spec/version': REMOTESTORAGE_VERSION,
      [OAUTH_DIALOG_PROPERTY]: withOAuth ? account.origin + OAUTH_AUTHORIZE_PATH : null,
      // No access token in the query string, no byte ranges, no web authoring.
      'http://tools.ietf.org/html/rfc6750#section-2.3': null,
      'http://tools.ietf.org/html/rfc7233': null,
      'http://remotestorage.io/spec/web-authoring': null,
    },
  };
}

export const remoteStorageCode: FeatureCode = {
  create(context) {
    // On at every start, needed by few: the route's code loads with the first request under /storage/.
    let route: Promise<ReturnType<typeof remoteStorageRoute>> | undefined;
    return {
      routes(app: Hono) {
        // A failed load is tried again by the next request.
        const loaded = () =>
          (route ??= import('./route.ts').then(
            (module) => module.remoteStorageRoute(context),
            (error: unknown) => {
              route = undefined;
              throw error;
            },
          ));
        app.all(`${STORAGE_PREFIX}*`, async (c: Context, next: Next) => (await loaded())(c, next));
      },
      webfinger: (account) => [remoteStorageLink(account, context.config.idp)],
    };
  },
};
