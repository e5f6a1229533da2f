/**
 * The one table of options. The CLI flags, `SVC_*` environment variables, config-file keys, `--help` and
 * the README option table are all derived from it.
 */

export type OptionKind = 'boolean' | 'integer' | 'port' | 'string' | 'size' | 'url' | 'duration' | 'choice';

export interface OptionSpec {
  /** Camel-case key: the config-file key and the field of `Config`. */
  key: string;
  /** Long flag without dashes, e.g. `ssl-key`. */
  flag: string;
  short?: string;
  kind: OptionKind;
  /** Placeholder shown in help, e.g. `<n>`. Booleans have none. */
  arg?: string;
  default: string | number | boolean | undefined;
  help: string;
  choices?: readonly string[];
  /** An empty `SVC_*` variable sets the empty string, which means something here; for other options it counts as unset. */
  emptyIsAValue?: boolean;
}

export const OPTIONS = [
  { key: 'port', flag: 'port', short: 'p', kind: 'port', arg: '<n>', default: 3000, help: 'listening port' },
  { key: 'host', flag: 'host', short: 'h', kind: 'string', arg: '<addr>', default: '0.0.0.0', help: 'bind address' },
  { key: 'root', flag: 'root', short: 'r', kind: 'string', arg: '<path>', default: './data', help: 'data directory' },
  { key: 'config', flag: 'config', short: 'c', kind: 'string', arg: '<file>', default: undefined, help: 'JSON config file (keys are the camel-case option names)' },
  { key: 'storage', flag: 'storage', kind: 'choice', arg: '<driver>', choices: ['fs', 'memory', 'r2', 's3'], default: 'fs', help: 'resource storage driver: fs (files under --root), memory (lost on exit), r2 (Cloudflare Workers only) or s3 (an S3-compatible bucket: --s3-*; see docs/storage.md)' },
  { key: 's3Endpoint', flag: 's3-endpoint', kind: 'url', arg: '<url>', default: undefined, help: 'S3 endpoint for --storage s3 (MinIO, Ceph RGW, R2: https://<account>.r2.cloudflarestorage.com; default: AWS S3 in --s3-region). Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN' },
  { key: 's3Bucket', flag: 's3-bucket', kind: 'string', arg: '<name>', default: undefined, help: 'bucket for --storage s3 (it must exist)' },
  { key: 's3Region', flag: 's3-region', kind: 'string', arg: '<region>', default: 'us-east-1', help: 'region of the bucket, for request signatures (R2: auto)' },
  { key: 's3Prefix', flag: 's3-prefix', kind: 'string', arg: '<prefix>', default: undefined, help: 'key prefix inside the bucket (e.g. pods/), so one bucket can hold several servers' },
  { key: 's3ForcePathStyle', flag: 's3-force-path-style', kind: 'boolean', default: false, help: 'address the bucket as <endpoint>/<bucket>/ instead of <bucket>.<endpoint host> (MinIO and most self-hosted servers need it)' },
  { key: 's3Timeout', flag: 's3-timeout', kind: 'duration', arg: '<duration>', default: '10s', help: 'how long each S3 request may wait for its answer\'s headers; past it the request is answered 503 (the write may have landed: the pod is measured again)' },
  { key: 'sslKey', flag: 'ssl-key', kind: 'string', arg: '<path>', default: undefined, help: 'TLS private key (PEM); with --ssl-cert serves HTTPS' },
  { key: 'sslCert', flag: 'ssl-cert', kind: 'string', arg: '<path>', default: undefined, help: 'TLS certificate (PEM)' },
  { key: 'maxBodySize', flag: 'max-body-size', kind: 'size', arg: '<size>', default: '100MB', help: 'largest request body accepted (413 beyond)' },
  { key: 'maxRdfSize', flag: 'max-rdf-size', kind: 'size', arg: '<size>', default: '4MB', help: 'largest RDF document (Turtle, JSON-LD, N-Triples, N3, PATCH bodies) parsed, with at most one triple per 32 bytes of it (413 beyond); other bodies go up to --max-body-size' },
  { key: 'maxSocketsPerAddress', flag: 'max-sockets-per-address', kind: 'integer', arg: '<n>', default: 32, help: 'long-lived connections (WebSockets of notifications, Nostr relay, live reload, Mastodon streaming; notification streams) one client address may hold open at once (IPv6: one /64); more are refused with 429 (0 = no limit, e.g. behind a proxy without --trust-proxy)' },
  { key: 'maxSockets', flag: 'max-sockets', kind: 'integer', arg: '<n>', default: 10000, help: 'long-lived connections (WebSockets, notification streams) the server holds open at once, from all addresses (503 beyond; 0 = no limit of its own); never more than half the file descriptors the process may open, so plain HTTP is still answered' },
  { key: 'maxConnectionsPerAddress', flag: 'max-connections-per-address', kind: 'integer', arg: '<n>', default: 1024, help: 'TCP connections (HTTP and HTTPS, idle keep-alive ones and WebSockets included) one client address may hold open at once (IPv6: one /64; never more than half of --max-connections); more are closed as they come (0 = no limit; with --trust-proxy it does not apply, every connection comes from the proxy). Node only: Deno, Bun and Workers keep their own' },
  { key: 'maxConnections', flag: 'max-connections', kind: 'integer', arg: '<n>', default: 0, help: 'TCP connections the server holds open at once from all addresses; more are closed as they come (0: as many as the file descriptors allow, less a tenth, at least 64, kept for files). Node only' },
  { key: 'socketIdleTimeout', flag: 'socket-idle-timeout', kind: 'duration', arg: '<duration>', default: '60s', help: 'a WebSocket subscribed to nothing and silent this long is closed; sockets are pinged every half of it and dropped when they miss a pong, and notification streams write a keep-alive as often' },
  { key: 'maxSocketBuffers', flag: 'max-socket-buffers', kind: 'size', arg: '<size>', default: '16MB', help: 'unsent bytes held for all WebSockets and notification streams together (one: at most 1 MB); past it the one furthest behind is closed (1013)' },
  { key: 'cacheSize', flag: 'cache-size', kind: 'size', arg: '<size>', default: '24MB', help: 'memory the caches may hold in all: small file bodies and types, container listings and their bodies, converted representations, ACL documents and access decisions (see docs/decisions.md, "Caches and their bounds")' },
  { key: 'conneg', flag: 'conneg', kind: 'boolean', default: false, help: 'enable Turtle (and N-Triples) content negotiation' },
  { key: 'notifications', flag: 'notifications', kind: 'boolean', default: false, help: 'enable change notifications: solid-0.1, and the WebSocketChannel2023, WebhookChannel2023 and StreamingHTTPChannel2023 channels (see docs/notifications.md)' },
  { key: 'notificationsAuth', flag: 'notifications-auth', kind: 'boolean', default: false, help: 'solid-0.1 subscriptions need WAC Read (bearer token on the upgrade request)' },
  { key: 'notificationsWebhooks', flag: 'notifications-webhooks', kind: 'integer', arg: '<n>', default: 10000, help: 'WebhookChannel2023 subscriptions kept in all (503 beyond; each agent may hold 100, each pod 1,000)' },
  { key: 'idp', flag: 'idp', kind: 'boolean', default: false, help: 'enable the built-in Solid-OIDC identity provider (accounts, login at /idp/auth; see docs/identity.md), with OAuth for third-party apps and the Mastodon API (docs/mastodon-api.md)' },
  { key: 'idpIssuer', flag: 'idp-issuer', kind: 'url', arg: '<url>', default: undefined, help: 'issuer URL of the IdP, an origin without a path such as https://pods.example (default: the origin each request comes to)' },
  { key: 'idpMaxClientCredentials', flag: 'idp-max-client-credentials', kind: 'integer', arg: '<n>', default: 50, help: 'client credentials one account may hold (409 beyond; 0 = none)' },
  { key: 'idpMaxPasskeys', flag: 'idp-max-passkeys', kind: 'integer', arg: '<n>', default: 20, help: 'passkeys one account may register (409 beyond; 0 = none)' },
  { key: 'idpMaxNostrKeys', flag: 'idp-max-nostr-keys', kind: 'integer', arg: '<n>', default: 20, help: 'Nostr keys one account may link for sign-in (409 beyond; 0 = none)' },
  { key: 'subdomains', flag: 'subdomains', kind: 'boolean', default: false, help: 'serve pod <name> at <name>.<base-domain>/ (needs --base-domain and a wildcard DNS record; see docs/subdomains.md)' },
  { key: 'baseDomain', flag: 'base-domain', kind: 'string', arg: '<domain>', default: undefined, help: 'base domain for subdomain mode: pods are created there (POST /.pods), other hosts get 404' },
  { key: 'databrowser', flag: 'databrowser', kind: 'boolean', default: false, help: 'serve the data browser (mashlib) to browsers from its files in node_modules, no network needed (see docs/databrowser.md)' },
  { key: 'databrowserCdn', flag: 'databrowser-cdn', kind: 'boolean', default: false, help: 'serve the data browser (mashlib) from cdn.jsdelivr.net, in the version --databrowser-version names' },
  { key: 'databrowserModule', flag: 'databrowser-module', kind: 'url', arg: '<url>', default: undefined, help: 'use an ES-module data browser from a URL (turns on --conneg)' },
  { key: 'databrowserVersion', flag: 'databrowser-version', kind: 'string', arg: '<ver>', default: '2.0.0', help: 'mashlib version --databrowser-cdn loads' },
  { key: 'uiShell', flag: 'ui-shell', kind: 'boolean', default: false, help: 'a bar on the data browser\'s pages: home, up, the URL, and log in or out with --idp (needs --databrowser or --databrowser-cdn)' },
  { key: 'git', flag: 'git', kind: 'boolean', default: false, help: 'serve git repositories in containers over HTTP (clone, push; needs --storage fs)' },
  { key: 'nostr', flag: 'nostr', kind: 'boolean', default: false, help: 'enable the Nostr relay (NIP-01, 09, 11, 40, 42) over WebSocket' },
  { key: 'nostrPath', flag: 'nostr-path', kind: 'string', arg: '<path>', default: '/relay', help: 'relay WebSocket path (its NIP-11 document is served there too)' },
  { key: 'nostrMaxEvents', flag: 'nostr-max-events', kind: 'integer', arg: '<n>', default: 1000, help: 'maximum events the relay keeps; the earliest received go first' },
  { key: 'nostrPersist', flag: 'nostr-persist', kind: 'boolean', default: false, help: 'keep the relay\'s events across restarts (in the storage under /.server/nostr/; default: memory only)' },
  { key: 'inviteOnly', flag: 'invite-only', kind: 'boolean', default: false, help: 'require an invite code (`svc invite create`) to create a pod' },
  { key: 'webidTls', flag: 'webid-tls', kind: 'boolean', default: false, help: 'enable WebID-TLS client certificate authentication (needs --ssl-key and --ssl-cert)' },
  { key: 'defaultQuota', flag: 'default-quota', kind: 'size', arg: '<size>', default: '50MB', help: 'storage quota of each new pod (0 = unlimited); change one pod with `svc quota set`' },
  { key: 'activitypub', flag: 'activitypub', kind: 'boolean', default: false, help: 'enable ActivityPub federation: the WebID `/profile/card` of the single-user pod at `/` is a fediverse actor (needs `--single-user --single-user-name ""`)' },
  { key: 'apUsername', flag: 'ap-username', kind: 'string', arg: '<name>', default: 'me', help: 'ActivityPub username (`acct:<name>@<host>`)' },
  { key: 'apDisplayName', flag: 'ap-display-name', kind: 'string', arg: '<name>', default: undefined, help: 'ActivityPub display name (default: the username)' },
  { key: 'apSummary', flag: 'ap-summary', kind: 'string', arg: '<text>', default: undefined, help: 'ActivityPub bio' },
  { key: 'apNostrPubkey', flag: 'ap-nostr-pubkey', kind: 'string', arg: '<hex>', default: undefined, help: 'Nostr public key (64 lowercase hex characters) of the pod owner: WebID profiles made from now on say `as:alsoKnownAs <did:nostr:<hex>>`, and so does the ActivityPub actor' },
  { key: 'apInboxMaxBodySize', flag: 'ap-inbox-max-body-size', kind: 'size', arg: '<size>', default: '256KB', help: 'largest activity the ActivityPub inboxes take (413 beyond); a fediverse activity is a few KB' },
  { key: 'mastodonKnownActors', flag: 'mastodon-known-actors', kind: 'integer', arg: '<n>', default: 10000, help: 'remote actors whose names the Mastodon API keeps (under /.server/mastodon/actors/); past it, those fetched longest ago are forgotten' },
  { key: 'streamingBacklog', flag: 'streaming-backlog', kind: 'integer', arg: '<n>', default: 1000, help: 'with --activitypub, writes waiting to become Mastodon streaming events (posts, deletions, notifications); past it the oldest are dropped and logged' },
  { key: 'nostrDidResolver', flag: 'nostr-did-resolver', kind: 'url', arg: '<url>', default: undefined, help: 'where DID documents of Nostr keys are read (`<url><pubkey>.json`) to link a NIP-98 key to a WebID (default: this server, which answers /.well-known/did/nostr/ for keys its accounts linked)' },
  { key: 'public', flag: 'public', kind: 'boolean', default: false, help: 'skip access control: anyone who can reach the server may read, change and delete everything (local experiments only, with --host 127.0.0.1)' },
  { key: 'tokenTtl', flag: 'token-ttl', kind: 'duration', arg: '<duration>', default: '30d', help: 'lifetime of bearer tokens from pod creation and `svc token` (e.g. 12h, 30d)' },
  { key: 'readOnly', flag: 'read-only', kind: 'boolean', default: false, help: 'refuse PUT, POST, DELETE and PATCH (405)' },
  { key: 'liveReload', flag: 'live-reload', kind: 'boolean', default: false, help: 'reload open HTML pages when they or their container change, through HTTP or on disk (a development aid; see docs/databrowser.md)' },
  { key: 'docdb', flag: 'docdb', kind: 'boolean', default: false, help: 'keep JSON-LD documents under `/db/<pod>/` in MongoDB, under the pod\'s ACLs and quota (see docs/docdb.md)' },
  { key: 'docdbUrl', flag: 'docdb-url', kind: 'string', arg: '<url>', default: 'mongodb://127.0.0.1:27017', help: 'MongoDB connection string for --docdb' },
  { key: 'docdbDatabase', flag: 'docdb-database', kind: 'string', arg: '<name>', default: 'solid', help: 'MongoDB database for --docdb' },
  { key: 'singleUser', flag: 'single-user', kind: 'boolean', default: false, help: 'create one pod at startup, print its token, and refuse registration (403)' },
  { key: 'singleUserName', flag: 'single-user-name', kind: 'string', arg: '<name>', default: 'me', emptyIsAValue: true, help: 'name of that pod (`/<name>/`); an empty string puts the pod at `/` with the WebID `/profile/card#me`' },
  { key: 'singleUserSecret', flag: 'single-user-secret', kind: 'string', arg: '<secret>', default: undefined, help: 'with --single-user: a secret of at least 32 characters that the owner trades for an owner token at `POST /.pods/owner-token` (`Authorization: Bearer <secret>`), for servers without a terminal (on Workers: `wrangler secret put SVC_SINGLE_USER_SECRET`)' },
  { key: 'redisUrl', flag: 'redis-url', kind: 'string', arg: '<url>', default: undefined, help: 'Redis shared by several instances serving one data directory (redis://host:port): rate limits, locks, quota counts, replay caches, notifications, ACL changes and ActivityPub deliveries (each sent once) hold across them (see docs/scale-out.md)' },
  { key: 'rateLimit', flag: 'rate-limit', kind: 'boolean', default: true, help: 'apply the rate limits below (429 with Retry-After); `--no-rate-limit` switches them all off' },
  { key: 'rateLimitRequests', flag: 'rate-limit-requests', kind: 'integer', arg: '<n>', default: 100, help: 'requests per client IP per minute (0 = no limit)' },
  { key: 'rateLimitWrites', flag: 'rate-limit-writes', kind: 'integer', arg: '<n>', default: 60, help: 'writes (PUT, POST, PATCH, DELETE) per identity (WebID, else IP) per minute (0 = no limit)' },
  { key: 'rateLimitLogin', flag: 'rate-limit-login', kind: 'integer', arg: '<n>', default: 10, help: 'login attempts (password, passkey and Nostr sign-in, token requests with credentials) per client IP per minute (0 = no limit)' },
  { key: 'rateLimitRegister', flag: 'rate-limit-register', kind: 'integer', arg: '<n>', default: 5, help: 'account registrations (POST /idp/register) per client IP per hour (0 = no limit)' },
  { key: 'rateLimitPods', flag: 'rate-limit-pods', kind: 'integer', arg: '<n>', default: 1, help: 'pod creations (POST /.pods) per client IP in the 24 hours from its first creation (0 = no limit, e.g. for local development)' },
  { key: 'rateLimitNostr', flag: 'rate-limit-nostr', kind: 'integer', arg: '<n>', default: 20, help: 'Nostr events accepted per relay connection per second, with a burst of as many (0 = no limit)' },
  { key: 'rateLimitApActor', flag: 'rate-limit-ap-actor', kind: 'integer', arg: '<n>', default: 60, help: 'activities per remote ActivityPub actor (its signing key) per minute at the inboxes (0 = no limit)' },
  { key: 'rateLimitApHost', flag: 'rate-limit-ap-host', kind: 'integer', arg: '<n>', default: 300, help: 'activities per remote server (the signing key\'s host) per minute at the ActivityPub inboxes (0 = no limit)' },
  { key: 'allowedHosts', flag: 'allowed-hosts', kind: 'string', arg: '<names>', default: undefined, help: 'host names (comma-separated, each optionally with :port) the server answers to; others get 421. Set it wherever untrusted clients can reach the server: the Host header decides which absolute IRIs in ACLs count as this server\'s' },
  { key: 'baseUrl', flag: 'base-url', kind: 'url', arg: '<url>', default: undefined, help: 'the public origin clients reach the server at (e.g. https://pods.example.org behind a reverse proxy): WebIDs, Location, Link and ACL IRIs carry it, requests for other hosts get 421' },
  { key: 'trustProxy', flag: 'trust-proxy', kind: 'boolean', default: false, help: 'take the client IP from X-Forwarded-For, and with --base-url the host and scheme from X-Forwarded-Host and X-Forwarded-Proto (only behind a reverse proxy that sets them)' },
  { key: 'allowPrivateFetch', flag: 'allow-private-fetch', kind: 'boolean', default: false, help: 'let server-side fetches (issuer discovery, JWKS, WebID profiles) reach loopback, private and link-local addresses; for local setups and tests only' },
  { key: 'quiet', flag: 'quiet', short: 'q', kind: 'boolean', default: false, help: 'suppress the request log' },
] as const satisfies readonly OptionSpec[];

type Spec = (typeof OPTIONS)[number];
type ValueOf<S extends Spec> = S['kind'] extends 'boolean'
  ? boolean
  : S['kind'] extends 'integer' | 'port' | 'size' | 'duration'
    ? number
    : string;
type Required<S extends Spec> = S['default'] extends undefined ? ValueOf<S> | undefined : ValueOf<S>;

/** Resolved configuration: every option, parsed. */
export type Config = { [S in Spec as S['key']]: Required<S> };

export function envNameOf(spec: OptionSpec): string {
  return 'SVC_' + spec.flag.toUpperCase().replace(/-/g, '_');
}

export const OPTION_BY_KEY: ReadonlyMap<string, OptionSpec> = new Map(OPTIONS.map((o) => [o.key, o]));
