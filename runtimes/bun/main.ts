/**
 * Bun entry: the same app as `svc start`, served by `Bun.serve`, with WebSocket notifications through
 * Bun's built-in WebSocket server. Files go through Bun's Node compatibility (see runtimes/shared/standalone.ts).
 *
 *   bun run runtimes/bun/main.ts [svc start options]
 */
import { ConfigError } from '../../src/config/resolve.ts';
import type { SocketHandlers, UpgradeAnswer } from '../../src/notifications/socket.ts';
import { MAX_SOCKET_MESSAGE_BYTES } from '../../src/sockets/messages.ts';
import { listeningLine } from '../shared/listening-line.ts';
import { baseUrl, gracefulShutdown, prepareStandalone, singleUserNoticeOf, type ConnectionInfo } from '../shared/standalone.ts';

/** What a socket carries from the upgrade to its events. */
interface SocketData {
  answer: Extract<UpgradeAnswer, { accept: unknown }>;
  handlers?: SocketHandlers;
}

interface BunSocket {
  data: SocketData;
  send(text: string): number;
  close(code?: number, reason?: string): void;
  terminate(): void;
  getBufferedAmount(): number;
}

interface BunServer {
  hostname: string;
  port: number;
  upgrade(request: Request, options: { data: SocketData }): boolean;
  requestIP(request: Request): { address: string } | null;
  stop(closeActiveConnections?: boolean): Promise<void>;
}

/** The part of the Bun namespace used here (the project type-checks with Node's types, not Bun's). */
interface BunApi {
  serve(options: {
    hostname: string;
    port: number;
    tls?: { key: string; cert: string };
    fetch(request: Request, server: BunServer): Response | undefined | Promise<Response | undefined>;
    websocket?: {
      maxPayloadLength: number;
      idleTimeout: number;
      sendPings: boolean;
      open(ws: BunSocket): void;
      message(ws: BunSocket, message: string | Uint8Array): void;
      close(ws: BunSocket): void;
    };
  }): BunServer;
}

const bun = (globalThis as unknown as { Bun: BunApi }).Bun;

/** Bun's longest idle timeout, in seconds. */
const MAX_IDLE_TIMEOUT_SECONDS = 960;

const log = (line: string) => console.log(line);

function isWebSocketRequest(request: Request): boolean {
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

async function main(): Promise<void> {
  const { config, app, tls } = await prepareStandalone('bun', process.argv.slice(2), process.env, log);
  const sockets = new Set<BunSocket>();

  const upgradeWebSocket = app.upgradeWebSocket;
  const server = bun.serve({
    hostname: config.host,
    port: config.port,
    ...(tls && { tls }),
    async fetch(request, server) {
      const connection: ConnectionInfo = { remoteAddress: server.requestIP(request)?.address };
      if (upgradeWebSocket && isWebSocketRequest(request)) {
        const answer = await upgradeWebSocket(request, connection);
        if (!answer) return new Response('There is no WebSocket endpoint at this URL.', { status: 404 });
        if ('refuse' in answer) return answer.refuse;
        if (server.upgrade(request, { data: { answer } })) return undefined;
        answer.cancel?.();
        return new Response('The WebSocket handshake failed.', { status: 400 });
      }
      return app.fetch(request, connection);
    },
    ...(upgradeWebSocket && {
      websocket: {
        maxPayloadLength: MAX_SOCKET_MESSAGE_BYTES,
        // Bun pings a socket silent this long and closes it when it stays silent.
        idleTimeout: Math.min(MAX_IDLE_TIMEOUT_SECONDS, config.socketIdleTimeout),
        sendPings: true,
        open(ws: BunSocket) {
          sockets.add(ws);
          ws.data.handlers = ws.data.answer.accept({
            send: (text) => void ws.send(text),
            close: (code, reason) => ws.close(code, reason),
            terminate: () => ws.terminate(),
            get bufferedAmount() {
              return ws.getBufferedAmount();
            },
          });
        },
        message(ws: BunSocket, message: string | Uint8Array) {
          ws.data.handlers?.message(typeof message === 'string' ? message : null);
        },
        close(ws: BunSocket) {
          sockets.delete(ws);
          if (ws.data.handlers) ws.data.handlers.closed();
          else ws.data.answer.cancel?.();
        },
      },
    }),
  });
  const url = baseUrl(Boolean(tls), server.hostname, server.port);
  const singleUser = await singleUserNoticeOf(app, url, config);
  if (singleUser) log(singleUser);
  log(listeningLine('bun', url, config));

  const stop = gracefulShutdown({
    log,
    closeSockets: () => {
      sockets.forEach((ws) => ws.close(1001, 'server shutting down'));
      app.closeStreams();
    },
    stopServer: () => server.stop(),
    closeStorage: () => app.close(),
    exit: (code) => process.exit(code),
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`svc: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
