/**
 * The TCP connection bounds of a real `svc start`: idle connections that never send a request count, one
 * address cannot take more than its share, the others are still answered, and a freed place is taken again.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectionLimitsOf, descriptorsKept } from '../../runtimes/node/connection-limit.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const PER_ADDRESS = { maxConnectionsPerAddress: 256, maxConnections: 0, trustProxy: false };

describe('connectionLimitsOf', () => {
  it('keeps the total under the file descriptors, less those kept for files', () => {
    expect(connectionLimitsOf(PER_ADDRESS, 20_000)).toEqual({ perAddress: 256, total: 20_000 - 2_000 });
    expect(connectionLimitsOf(PER_ADDRESS, 1024)).toEqual({ perAddress: 256, total: 1024 - 102 });
    expect(connectionLimitsOf({ ...PER_ADDRESS, maxConnections: 500 }, 20_000).total).toBe(500);
    expect(connectionLimitsOf({ ...PER_ADDRESS, maxConnections: 50_000 }, 20_000).total).toBe(18_000);
    expect(connectionLimitsOf(PER_ADDRESS, undefined).total).toBe(0);
    expect(descriptorsKept(1_000_000)).toBe(100_000);
  });

  it('keeps one address to half the total, so it cannot take every place', () => {
    expect(connectionLimitsOf({ ...PER_ADDRESS, maxConnectionsPerAddress: 1024 }, 1024)).toEqual({ perAddress: 461, total: 922 });
    expect(connectionLimitsOf({ ...PER_ADDRESS, maxConnections: 2 }, 20_000)).toEqual({ perAddress: 1, total: 2 });
    expect(connectionLimitsOf({ ...PER_ADDRESS, maxConnectionsPerAddress: 0 }, 20_000).perAddress).toBe(0);
  });

  it('has no share per address behind a proxy, where every connection comes from the proxy', () => {
    expect(connectionLimitsOf({ ...PER_ADDRESS, trustProxy: true }, 20_000).perAddress).toBe(0);
  });
});

const servers: RunningSvc[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
afterAll(async () => {
  await Promise.all(servers.map((svc) => svc.stop()));
});

async function started(args: string[]): Promise<{ svc: RunningSvc; port: number }> {
  const svc = await startSvc(args);
  servers.push(svc);
  return { svc, port: Number(new URL(svc.base).port) };
}

/** A connection that sends nothing; resolves once connected. */
function idleConnection(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Resolves with what the server sent before it closed the connection (never sending anything). */
function closedByServer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.once('close', () => resolve(received));
  });
}

function statusOf(port: number, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request({ port, host: '127.0.0.1', localAddress, path: '/', agent: false }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode!));
    });
    sent.once('error', reject);
    sent.end();
  });
}

/** The status of a GET once the server has seen a closed connection go (it hears of it a moment later). */
async function statusOnceFreed(port: number, localAddress: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await statusOf(port, localAddress);
    } catch (error) {
      if (attempt === 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('a running server', () => {
  it('closes the connections of one address beyond its share, and still answers the others', async () => {
    const { svc, port } = await started(['--max-connections-per-address', '3']);
    const held = [await idleConnection(port, '127.0.0.1'), await idleConnection(port, '127.0.0.1'), await idleConnection(port, '127.0.0.1')];
    const refused = await closedByServer(await idleConnection(port, '127.0.0.1'));
    expect(refused).toBe('');
    await expect(statusOf(port, '127.0.0.1')).rejects.toThrow();
    expect(await statusOf(port, '127.0.0.2')).toBe(200);
    expect(svc.output()).toMatch(/connections: 127\.0\.0\.1 holds 3, the most --max-connections-per-address allows/);
    held[0]!.destroy();
    expect(await statusOnceFreed(port, '127.0.0.1')).toBe(200);
    // Logged once, however many were closed.
    expect(svc.output().match(/--max-connections-per-address allows/g)).toHaveLength(1);
  });

  it('closes connections beyond the total, from any address', async () => {
    const { svc, port } = await started(['--max-connections', '2']);
    await idleConnection(port, '127.0.0.3');
    const second = await idleConnection(port, '127.0.0.4');
    expect(await closedByServer(await idleConnection(port, '127.0.0.5'))).toBe('');
    expect(svc.output()).toMatch(/connections: 2 open, the most --max-connections allows/);
    second.destroy();
    expect(await statusOnceFreed(port, '127.0.0.5')).toBe(200);
  });
});
