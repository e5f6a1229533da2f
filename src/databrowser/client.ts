/**
 * The data browser as an OAuth client: where it lives on every host of the server, and the Client ID
 * Document it is known by. `/.databrowser/` is outside every pod: a pod name cannot start with a dot, and on
 * a pod's host (subdomain mode) the server answers these paths before the pod does.
 */
export const ASSET_PREFIX = '/.databrowser/';
/** The data browser's client ID, one per host: `<origin>/.databrowser/id`. */
export const CLIENT_ID_PATH = `${ASSET_PREFIX}id`;
/** Where a login comes back to, on the page's host: a page the server writes, never a stored one. */
export const CALLBACK_PATH = `${ASSET_PREFIX}callback`;

export const clientNameOf = (host: string) => `Data browser of ${host}`;

/** The Client ID Document (Solid-OIDC §5) of the data browser on `origin`. */
export function clientDocument(origin: string): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/solid/oidc-context.jsonld'],
    client_id: origin + CLIENT_ID_PATH,
    client_name: clientNameOf(new URL(origin).host),
    redirect_uris: [origin + CALLBACK_PATH],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid webid offline_access',
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
