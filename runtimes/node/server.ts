import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createApp, type App } from '../../src/app.ts';
import type { Config } from '../../src/config/options.ts';
import { ConfigError, startupNotices } from '../../src/config/resolve.ts';
import { applyCors } from '../../src/http/headers.ts';
import { problemResponse } from '../../src/http/problem.ts';
import type { Platform } from '../../src/platform.ts';
import type { SingleUserPod } from '../../src/pods/single-user.ts';
import { nodeOutboundFetch } from './outbound-fetch.ts';
import { nodeSignatureVerifier } from './signature-verifier.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { mashlibAssetReader } from './databrowser-assets.ts';
import { createNodeGitBackend } from './git-backend.ts';
import { openMongoDocumentStore } from './docdb.ts';
import { watchStorageFiles } from './storage-watcher.ts';
import { openStorage } from './storage.ts';

/** Dot segments and backslashes in the raw request target; URL parsing would silently resolve them. */
const UNSAFE_RAW_PATH = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$|\?)|\\|%5c/i;

function rawPathOf(url: string | undefined): string {
  const target = url ?? '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** Answers a request the app never sees, with the same problem body and CORS headers as the app's own answers. */
async function sendProblem(req: IncomingMessage, res: ServerResponse, status: number, detail: string): Promise<void> {
  const response = problemResponse(status, detail, { type: 'urn:svc:problem:invalid-path' });
  const origin = req.headers.origin;
  applyCors(new Request('http://svc.invalid/', { method: req.method === 'OPTIONS' ? 'OPTIONS' : 'GET', headers: origin ? { origin } : {} }), response.headers);
  res.writeHead(status, Object.fromEntries(response.headers));
  res.end(await response.text());
}

export interface RunningServer {
  server: Server;
  url: string;
  /** With --single-user: the pod, with its owner's token when this start created it. */
  singleUserPod: SingleUserPod | null;
  close(): Promise<void>;
}

export async function startServer(config: Config, log: (line: string) => void): Promise<RunningServer> {
  if (Boolean(config.sslKey) !== Boolean(config.sslCert)) {
    throw new ConfigError('--ssl-key and --ssl-cert must be given together to serve HTTPS.');
  }
  for (const notice of startupNotices(config, config.host)) log(notice);

  const storage = await openStorage(config, true);
  let listeningUrl: string | undefined;
  // Git works on real files: only the fs driver has them (without it, the git feature refuses to start).
  const git = config.git && storage instanceof FsDriver ? await createNodeGitBackend(storage.root, log) : undefined;
  // The MongoDB driver is loaded only with --docdb.
  const documentStore = config.docdb ? await openMongoDocumentStore(config.docdbUrl, config.docdbDatabase) : undefined;
  // Live reload hears of changes on disk only where pods are real files.
  const watcher = config.liveReload && storage instanceof FsDriver ? watchStorageFiles(storage, log) : undefined;
  // The Redis client is loaded only with --redis-url.
  const sharedState = config.redisUrl ? await (await import('./redis-shared-state.ts')).openRedisSharedState(config.redisUrl, log) : undefined;
  const platform: Platform = {
    runtime: 'node',
    storage,
    log,
    clientAddress: (_request, env) => (env as HttpBindings | undefined)?.incoming.socket.remoteAddress,
    peerCertificate: (_request, env) => {
      const socket = (env as HttpBindings | undefined)?.incoming.socket as Partial<TLSSocket> | undefined;
      // An empty object when the client sent none; `raw` is the DER encoding.
      const raw = socket?.getPeerCertificate?.()?.raw;
      return raw ? new Uint8Array(raw) : null;
    },
    fetch: nodeOutboundFetch({ allowPrivate: config.allowPrivateFetch, serverUrl: () => listeningUrl }),
    signatureVerifier: nodeSignatureVerifier,
    ...(git && { git }),
    ...(documentStore && { documentStore }),
    ...(config.databrowser && { databrowserAsset: mashlibAssetReader() }),
    ...(watcher && { watchStorage: watcher.watch }),
    ...(sharedState && { sharedState }),
    ...(config.activitypub && { activityPub: () => import('../../src/activitypub/federation.ts') }),
  };
  let app: App;
  try {
    app = createApp(config, platform);
    await app.init();
  } catch (error) {
    watcher?.close();
    await git?.close();
    await documentStore?.close();
    await sharedState?.close();
    throw error;
  }
  const singleUserPod = (await app.singleUserPod?.()) ?? null;
  const listener = getRequestListener((request, env) => app.fetch(request, env));
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (UNSAFE_RAW_PATH.test(rawPathOf(req.url))) {
      const started = Date.now();
      void sendProblem(req, res, 400, 'Invalid path: dot segments and backslashes are not allowed.').then(() => {
        if (!config.quiet) log(`${req.method} ${rawPathOf(req.url)} 400 ${Date.now() - started}ms`);
      });
      return;
    }
    void listener(req, res);
  };

  const tls = config.sslKey && config.sslCert;
  const server: Server = tls
    ? createHttpsServer(
        {
          key: await readFile(config.sslKey!),
          cert: await readFile(config.sslCert!),
          // WebID-TLS asks for a client certificate but takes none on a CA's word: the WebID profile vouches for it.
          ...(config.webidTls && { requestCert: true, rejectUnauthorized: false }),
        },
        handle,
      )
    : createHttpServer(handle);
  // Loaded only with --notifications, so startup without it never reads the WebSocket library.
  const webSockets = app.upgradeWebSocket ? (await import('./websocket.ts')).attachWebSockets(server, app.upgradeWebSocket, Boolean(tls), log) : null;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${shownHost}:${address.port}/`;
  listeningUrl = url;

  // Keep-alive connections that finish their request during shutdown become idle later; close those too.
  const close = () =>
    new Promise<void>((resolve) => {
      webSockets?.close();
      watcher?.close();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    }).then(async () => {
      await git?.close();
      await documentStore?.close();
      await app.close();
      await sharedState?.close();
    });
  return { server, url, singleUserPod, close };
}
