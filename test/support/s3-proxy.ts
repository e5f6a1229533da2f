import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What becomes of the answer to a request the proxy picked: cut off (the connection closed), or never sent. */
export type LostAnswer = 'drop' | 'hold';

/**
 * A proxy between svc and the test S3 server that passes every request on, and can lose the answer of the
 * requests a test picks after the S3 server has taken them: the write lands, svc never hears so. Request
 * headers pass unchanged, so signatures made for the proxy's address still hold.
 */
export interface S3Proxy {
  /** For --s3-endpoint. */
  endpoint: string;
  /** Loses the answers of requests with this method whose path matches, from now on. */
  lose(method: string, path: RegExp, how: LostAnswer): void;
  /** Answers everything again (and ends the answers held back). */
  passAll(): void;
  close(): Promise<void>;
}

export async function startS3Proxy(upstream: string): Promise<S3Proxy> {
  let rule: { method: string; path: RegExp; how: LostAnswer } | null = null;
  const held: ServerResponse[] = [];
  const server = createServer((incoming, outgoing) => {
    const lost = rule && incoming.method === rule.method && rule.path.test(incoming.url ?? '') ? rule.how : null;
    const forwarded = request(upstream + incoming.url, { method: incoming.method, headers: incoming.headers }, (answer) => {
      if (lost === 'drop') {
        answer.resume();
        answer.on('end', () => incoming.socket.destroy());
      } else if (lost === 'hold') {
        answer.resume();
        held.push(outgoing);
      } else {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      }
    });
    forwarded.on('error', () => incoming.socket.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endAll = () => {
    for (const response of held.splice(0)) response.socket?.destroy();
  };
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lose(method, path, how) {
      rule = { method, path, how };
    },
    passAll() {
      rule = null;
      endAll();
    },
    async close() {
      endAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
