/**
 * Node's WebSocket transport for the core: takes the http server's `upgrade` requests, asks the app whether
 * to accept them, and runs accepted sockets with `ws` (ping/pong keeps idle sockets honest).
 */
import { ServerResponse, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { UpgradeAnswer } from '../../src/notifications/socket.ts';
import { MAX_SOCKET_MESSAGE_BYTES } from '../../src/sockets/messages.ts';

const SHUTDOWN_GRACE_MS = 1_000;

export interface WebSockets {
  /** Closes every socket (1001, going away) and stops the ping timer. */
  close(): void;
}

function requestFrom(req: IncomingMessage, tls: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`${tls ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { headers });
}

/** Answers an upgrade with an HTTP error and frees the connection once the answer is written, whatever the client does next. */
function reject(socket: Duplex, status: number, body: string, headers: Headers = new Headers({ 'content-type': 'text/plain' })): void {
  const reason = STATUS_CODES[status] ?? 'Error';
  let head = `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\n`;
  for (const [name, value] of headers) if (name !== 'content-length' && name !== 'connection') head += `${name}: ${value}\r\n`;
  socket.end(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * Once anyone listens for `upgrade`, Node sends every request with an `Upgrade` header there, also
 * `Upgrade: h2c` from `curl --http2`, which must still be answered as an ordinary request. Node has already
 * stopped parsing the connection, so a body cannot be recovered: such requests are refused, bodiless ones
 * go to the server's request handler on a connection closed after the answer.
 */
function serveAsOrdinaryRequest(server: Server, req: IncomingMessage, socket: Duplex): void {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody) {
    const detail = `This server does not take a request body together with "Upgrade: ${req.headers.upgrade}"; send the request without the Upgrade header (curl: --http1.1 instead of --http2).`;
    return reject(socket, 501, JSON.stringify({ type: 'urn:svc:problem:upgrade-with-body', title: 'Not Implemented', status: 501, detail }), new Headers({ 'content-type': 'application/problem+json' }));
  }
  req.push(null);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.once('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  server.emit('request', req, res);
}

/**
 * `pingIntervalMs`: a socket that has not answered the previous ping by the next one is dropped. The app gets
 * `{ incoming }` as `env`, as @hono/node-server gives it to `fetch`, so it sees the client's address.
 */
export function attachWebSockets(
  server: Server,
  upgrade: (request: Request, env: unknown) => Promise<UpgradeAnswer | null>,
  tls: boolean,
  log: (line: string) => void,
  pingIntervalMs: number,
): WebSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_SOCKET_MESSAGE_BYTES });
  const alive = new WeakMap<WebSocket, boolean>();

  const run = (ws: WebSocket, answer: Extract<UpgradeAnswer, { accept: unknown }>) => {
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    const handlers = answer.accept({
      send: (text) => ws.send(text),
      close: (code, reason) => ws.close(code, reason),
      terminate: () => ws.terminate(),
      get bufferedAmount() {
        return ws.bufferedAmount;
      },
    });
    ws.on('message', (data, isBinary) => handlers.message(isBinary ? null : data.toString()));
    ws.once('close', () => handlers.closed());
    ws.on('error', () => ws.terminate());
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (req.headers.upgrade?.toLowerCase() !== 'websocket') return serveAsOrdinaryRequest(server, req, socket);
    let request: Request;
    try {
      request = requestFrom(req, tls);
    } catch {
      reject(socket, 400, 'Invalid request target or Host header.');
      return;
    }
    upgrade(request, { incoming: req }).then(
      async (answer) => {
        if (!answer) return reject(socket, 404, 'There is no WebSocket endpoint at this URL.');
        if ('refuse' in answer) return reject(socket, answer.refuse.status, await answer.refuse.text(), answer.refuse.headers);
        // ws destroys the connection without calling back when the handshake fails (a bad key, a client gone).
        const cancel = () => answer.cancel?.();
        if (socket.destroyed) return cancel();
        socket.once('close', cancel);
        wss.handleUpgrade(req, socket, head, (ws) => {
          socket.off('close', cancel);
          run(ws, answer);
        });
      },
      (error: unknown) => {
        log(`websocket upgrade failed: ${error instanceof Error ? error.message : String(error)}`);
        reject(socket, 500, 'The server could not accept the WebSocket.');
      },
    );
  });

  const pings = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, pingIntervalMs);
  pings.unref();

  return {
    close() {
      clearInterval(pings);
      for (const ws of wss.clients) {
        ws.close(1001, 'server shutting down');
        setTimeout(() => ws.terminate(), SHUTDOWN_GRACE_MS).unref();
      }
      wss.close();
    },
  };
}
