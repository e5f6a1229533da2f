/**
 * A real inbox on loopback that can go down (its port refuses connections) and come back on the same port:
 * it answers 202 to every POST and records the activity's type and id in the order they arrived.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackInbox {
  url: string;
  received: { type: string; id: string }[];
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startLoopbackInbox(): Promise<LoopbackInbox> {
  const received: { type: string; id: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const activity = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; id: string };
      received.push({ type: activity.type, id: activity.id });
      response.writeHead(202).end();
    });
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  let listening = true;
  const down = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}/users/carol/inbox`,
    received,
    down,
    up: async () => {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: down,
  };
}
