/**
 * A loopback TCP relay in front of a MongoDB-wire server, for outage tests that need a failure at an exact
 * point of the protocol rather than whenever a killed process happens to close its sockets. It reads the
 * command name of each client message (OP_MSG, and the legacy OP_QUERY some handshakes use) and treats each
 * connection as its policy says: refused, relayed, cut at its handshake or at its first command past it, its
 * handshake replies held back for a while.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

const OP_QUERY = 2004;
const OP_MSG = 2013;
const HANDSHAKES = new Set(['hello', 'ismaster', 'isMaster']);

export interface ConnectionPolicy {
  /** `refuse`: closed at once; `relay`: messages pass; `cut-handshake` / `cut-command`: closed at its first handshake / first other command. */
  action: 'refuse' | 'relay' | 'cut-handshake' | 'cut-command';
  /** Milliseconds each reply to a handshake is held back. */
  holdHandshakeMs?: number;
}

export interface MongoProxy {
  /** `mongodb://127.0.0.1:<port>/?directConnection=true`. */
  url: string;
  /** How to treat the n-th connection (from 1) accepted from now on; the connections open until now are closed. */
  setPolicy(policy: (connection: number) => ConnectionPolicy): void;
  close(): Promise<void>;
}

/** The command of one client message: the first key of its (first) BSON document. */
function commandOf(message: Buffer): string | null {
  const opCode = message.readInt32LE(12);
  let at: number;
  if (opCode === OP_MSG) at = 16 + 4 + 1;
  else if (opCode === OP_QUERY) at = message.indexOf(0, 20) + 1 + 8;
  else return null;
  const nameStart = at + 4 + 1;
  return message.toString('latin1', nameStart, message.indexOf(0, nameStart));
}

/** Splits a byte stream into wire messages (each starts with its int32 length). */
function messages(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
      const length = pending.readInt32LE(0);
      onMessage(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  };
}

export async function startMongoProxy(target: { host: string; port: number }): Promise<MongoProxy> {
  const sockets = new Set<Socket>();
  let policyOf: (connection: number) => ConnectionPolicy = () => ({ action: 'relay' });
  let accepted = 0;
  const server: Server = createServer((client) => {
    const policy = policyOf(++accepted);
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (policy.action === 'refuse') return void client.destroy();
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    // The driver sends one message at a time on a connection and waits for its reply.
    let handshake = false;
    client.on(
      'data',
      messages((message) => {
        const command = commandOf(message);
        handshake = command !== null && HANDSHAKES.has(command);
        if (policy.action === (handshake ? 'cut-handshake' : 'cut-command')) return void client.destroy();
        upstream.write(message);
      }),
    );
    upstream.on(
      'data',
      messages((reply) => {
        const hold = handshake ? (policy.holdHandshakeMs ?? 0) : 0;
        if (hold) setTimeout(() => client.writable && client.write(reply), hold);
        else client.write(reply);
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    setPolicy(policy) {
      policyOf = policy;
      accepted = 0;
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
