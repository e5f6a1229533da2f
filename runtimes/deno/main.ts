/**
 * Deno entry: the same app as `svc start`, served by `Deno.serve`, with WebSocket notifications through
 * `Deno.upgradeWebSocket`. Files go through Deno's Node compatibility (see runtimes/shared/standalone.ts).
 *
 *   deno run --allow-net --allow-env --allow-read --allow-write --allow-sys runtimes/deno/main.ts [svc start options]
 *
 * With --git add --allow-run: git runs as a child process.
 */
import type { App } from '../../src/app.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import type { SocketHandlers, UpgradeAnswer } from '../../src/notifications/socket.ts';
import { CLOSE_TOO_BIG, isTooBigMessage } from '../../src/sockets/messages.ts';
import { listeningLine } from '../shared/listening-line.ts';
import { baseUrl, gracefulShutdown, prepareStandalone, singleUserNoticeOf, type ConnectionInfo } from '../shared/standalone.ts';

/** The part of the Deno namespace used here (the project type-checks with Node's types, not Deno's). */
interface DenoApi {
  args: string[];
  env: { toObject(): Record<string, string> };
  exit(code: number): never;
  serve(
    options: { hostname: string; port: number; cert?: string; key?: string; onListen?(address: { hostname: string; port: number }): void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  upgradeWebSocket(request: Request, options?: { protocol?: string; idleTimeout?: number }): { socket: WebSocket; response: Response };
  addSignalListener(signal: 'SIGINT' | 'SIGTERM', handler: () => void): void;
}

const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;

const log = (line: string) => console.log(line);
const sockets = new Set<WebSocket>();

function isWebSocketRequest(request: Request): boolean {
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

/**
 * Completes an accepted upgrade and connects the socket's events to the core's handlers. `idleTimeout`: Deno
 * pings a socket silent that long and closes it when no pong comes back within as long again.
 */
function acceptSocket(request: Request, answer: Extract<UpgradeAnswer, { accept: unknown }>, idleTimeout: number): Response {
  // Like the Node transport (ws), agree to the client's first subprotocol (solid-0.1 clients require the echo).
  const protocol = request.headers.get('sec-websocket-protocol')?.split(',')[0]?.trim() || undefined;
  let upgraded;
  try {
    upgraded = deno.upgradeWebSocket(request, { protocol, idleTimeout });
  } catch (error) {
    answer.cancel?.();
    throw error;
  }
  const { socket, response } = upgraded;
  let handlers: SocketHandlers | undefined;
  socket.addEventListener('open', () => {
    sockets.add(socket);
    handlers = answer.accept({
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      get bufferedAmount() {
        return socket.bufferedAmount;
      },
    });
  });
  socket.addEventListener('message', (event) => {
    if (!handlers) return;
    if (typeof event.data !== 'string') return handlers.message(null);
    if (isTooBigMessage(event.data)) return socket.close(CLOSE_TOO_BIG, 'message too big');
    handlers.message(event.data);
  });
  // A client gone before the socket opened closes it without an `open`: its place in the budget goes back then.
  socket.addEventListener(
    'close',
    () => {
      sockets.delete(socket);
      if (handlers) handlers.closed();
      else answer.cancel?.();
    },
    { once: true },
  );
  return response;
}

async function answerUpgrade(app: App, request: Request, connection: ConnectionInfo, idleTimeout: number): Promise<Response> {
  const answer = await app.upgradeWebSocket!(request, connection);
  if (!answer) return new Response('There is no WebSocket endpoint at this URL.', { status: 404 });
  if ('refuse' in answer) return answer.refuse;
  return acceptSocket(request, answer, idleTimeout);
}

async function main(): Promise<void> {
  const { config, app, tls } = await prepareStandalone('deno', deno.args, deno.env.toObject(), log);
  let url = '';
  let listened: () => void = () => {};
  const listening = new Promise<void>((resolve) => (listened = resolve));
  const server = deno.serve(
    {
      hostname: config.host,
      port: config.port,
      ...tls,
      onListen: ({ hostname, port }) => {
        url = baseUrl(Boolean(tls), hostname, port);
        listened();
      },
    },
    (request, info) => {
      const connection: ConnectionInfo = { remoteAddress: info.remoteAddr.hostname };
      if (app.upgradeWebSocket && isWebSocketRequest(request)) return answerUpgrade(app, request, connection, Math.max(1, Math.round(config.socketIdleTimeout / 2)));
      return app.fetch(request, connection);
    },
  );
  await listening;
  const singleUser = await singleUserNoticeOf(app, url, config);
  if (singleUser) log(singleUser);
  log(listeningLine('deno', url, config));

  const stop = gracefulShutdown({
    log,
    closeSockets: () => {
      sockets.forEach((socket) => socket.close(1001, 'server shutting down'));
      app.closeStreams();
    },
    stopServer: () => server.shutdown(),
    closeStorage: () => app.close(),
    exit: (code) => deno.exit(code),
  });
  deno.addSignalListener('SIGINT', () => stop('SIGINT'));
  deno.addSignalListener('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`svc: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  deno.exit(1);
});
