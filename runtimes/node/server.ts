import { getRequestListener, type HttpBindings } from '@hono/node-server';
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
import { connectionLimitsOf, limitConnections } from './connection-limit.ts';
import { descriptorLimit } from './descriptor-limit.ts';
import { nodeSignatureVerifier } from './signature-verifier.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { openOptionalParts, storageNotices, tlsFilesOf, type OptionalParts } from './optional-parts.ts';
import type { watchStorageFiles } from './storage-watcher.ts';
import { openStorage } from './storage.ts';
import type { StorageDriver } from '../../src/storage/types.ts';

/**
 * Dot segments and backslashes in the raw request target; URL parsing would silently resolve them. A segment
 * ends at `/`, `?`, `#` (a fragment sent by a careless client) or the end.
 */
const UNSAFE_RAW_PATH = /(?:^|\/)(?:\.|%2e){1,2}(?:[/?#]|$)|\\|%5c/i;

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

/** Listens, or says in one line what to change when the address or port cannot be had. */
async function listen(server: Server, config: Config): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `port ${config.port} on ${config.host}`;
    if (code === 'EADDRINUSE') throw new ConfigError(`${where} is already in use by another program: stop it, or choose another port with --port (e.g. --port ${config.port + 1}).`);
    if (code === 'EACCES') throw new ConfigError(`${where} needs privileges this user lacks (ports below 1024 do): choose --port 1024 or above, or serve it through a reverse proxy (docs/deployment.md).`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new ConfigError(`cannot listen on ${config.host} (--host): no network interface of this machine has that address; use 127.0.0.1, 0.0.0.0 or one of its addresses.`);
    }
    throw error;
  }
}

/**
 * Starts the server. It listens first, so a port in use or a wrong --host stops startup before anything
 * is written; requests that come while the app gets ready wait for it.
 */
export async function startServer(config: Config, log: (line: string) => void): Promise<RunningServer> {
  const tls = await tlsFilesOf(config);
  let dispatch: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  let ready!: () => void;
  const appReady = new Promise<void>((resolve) => (ready = resolve));
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (dispatch) dispatch(req, res);
    else void appReady.then(() => dispatch!(req, res));
  };
  let server: Server;
  try {
    server = tls
      ? createHttpsServer(
          {
            ...tls,
            // WebID-TLS asks for a client certificate but takes none on a CA's word: the WebID profile vouches for it.
            ...(config.webidTls && { requestCert: true, rejectUnauthorized: false }),
          },
          handle,
        )
      : createHttpServer(handle);
  } catch (error) {
    throw new ConfigError(`--ssl-key ${config.sslKey} and --ssl-cert ${config.sslCert} are not a PEM private key and the certificate that goes with it (${(error as Error).message}).`);
  }
  const descriptors = descriptorLimit();
  limitConnections(server, connectionLimitsOf(config, descriptors), log);
  await listen(server, config);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${tls ? 'https' : 'http'}://${shownHost}:${address.port}/`;

  let storage: StorageDriver | undefined;
  let optional: OptionalParts | undefined;
  let watcher: ReturnType<typeof watchStorageFiles> | undefined;
  let app: App;
  try {
    storage = await openStorage(config, { recover: true, env: process.env, log });
    // After the storage: a --root that cannot be used stops startup with its one line, and no notice before it.
    for (const notice of [...startupNotices(config, config.host), ...storageNotices(storage)]) log(notice);
    optional = await openOptionalParts(config, storage, log);
    // Live reload hears of changes on disk only where pods are real files.
    watcher = config.liveReload && storage instanceof FsDriver ? (await import('./storage-watcher.ts')).watchStorageFiles(storage, log) : undefined;
    const platform: Platform = {
      runtime: 'node',
      storage,
      log,
      ...(descriptors !== undefined && { descriptorLimit: descriptors }),
      clientAddress: (_request, env) => (env as HttpBindings | undefined)?.incoming.socket.remoteAddress,
      peerCertificate: (_request, env) => {
        const socket = (env as HttpBindings | undefined)?.incoming.socket as Partial<TLSSocket> | undefined;
        // An empty object when the client sent none; `raw` is the DER encoding.
        const raw = socket?.getPeerCertificate?.()?.raw;
        return raw ? new Uint8Array(raw) : null;
      },
      fetch: nodeOutboundFetch({ allowPrivate: config.allowPrivateFetch, serverUrl: () => url }),
      signatureVerifier: nodeSignatureVerifier,
      ...optional.platform,
      ...(watcher && { watchStorage: watcher.watch }),
      ...(config.activitypub && { activityPub: () => import('../../src/activitypub/federation.ts') }),
    };
    app = createApp(config, platform);
    await app.init();
  } catch (error) {
    server.closeAllConnections();
    server.close();
    watcher?.close();
    await optional?.close();
    await storage?.close?.();
    throw error;
  }
  const singleUserPod = (await app.singleUserPod?.()) ?? null;
  const listener = getRequestListener((request, env) => app.fetch(request, env));
  dispatch = (req, res) => {
    if (UNSAFE_RAW_PATH.test(rawPathOf(req.url))) {
      const started = Date.now();
      void sendProblem(req, res, 400, 'Invalid path: dot segments and backslashes are not allowed.').then(() => {
        if (!config.quiet) log(`${req.method} ${rawPathOf(req.url)} 400 ${Date.now() - started}ms`);
      });
      return;
    }
    void listener(req, res);
  };
  // Loaded only with --notifications, so startup without it never reads the WebSocket library.
  const webSockets = app.upgradeWebSocket ? (await import('./websocket.ts')).attachWebSockets(server, app.upgradeWebSocket, Boolean(tls), log, (config.socketIdleTimeout * 1000) / 2) : null;
  ready();

  // Keep-alive connections that finish their request during shutdown become idle later; close those too.
  const close = () =>
    new Promise<void>((resolve) => {
      webSockets?.close();
      app.closeStreams();
      watcher?.close();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    }).then(async () => {
      try {
        await app.close();
      } finally {
        await optional!.close();
      }
    });
  return { server, url, singleUserPod, close };
}
