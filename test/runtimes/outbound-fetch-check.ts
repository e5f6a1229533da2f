/**
 * Run by Deno and Bun (test/runtimes/deno-bun.test.ts): does the Node guarded fetch work on this runtime's
 * Node compatibility? Prints one JSON line: whether the connection went to the address the guard's resolver
 * gave (a name no real DNS knows), whether loopback was refused by name and by address without a request
 * reaching the server, and whether the size limit held.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';

const seen: string[] = [];
const server = createServer((req, res) => {
  seen.push(req.url ?? '');
  res.end(req.url === '/big' ? 'x'.repeat(5000) : `hello ${req.headers['user-agent']}`);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const port = (server.address() as AddressInfo).port;
const resolve = async (hostname: string) => {
  if (hostname !== 'only-our-resolver.test') throw new Error(`unknown name ${hostname}`);
  return [{ address: '127.0.0.1', family: 4 }];
};
const outcome = async (run: () => Promise<Response>) => {
  try {
    const response = await run();
    return `${response.status} ${await response.text()}`;
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
};
const allowed = nodeOutboundFetch({ allowPrivate: true, resolve, limits: { maxBytes: 1000 } });
const guarded = nodeOutboundFetch({ allowPrivate: false, resolve });
const result = {
  resolvedByGuard: await outcome(() => allowed(`http://only-our-resolver.test:${port}/hello`)),
  tooBig: await outcome(() => allowed(`http://127.0.0.1:${port}/big`)),
  loopbackByName: await outcome(() => guarded(`http://only-our-resolver.test:${port}/secret`)),
  loopbackByAddress: await outcome(() => guarded(`http://127.0.0.1:${port}/secret`)),
  requestsSeen: seen,
};
console.log(JSON.stringify(result));
server.close();
