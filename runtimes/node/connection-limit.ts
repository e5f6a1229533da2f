/**
 * Bounds on the Node server's TCP connections, plain HTTP included: the socket budget (src/sockets/budget.ts)
 * counts only long-lived ones, yet an idle connection that never sends a request holds a file descriptor
 * until Node's headersTimeout (60 s) closes it. Without a bound, one client could open them until the
 * process has no descriptor left for files. Beyond a bound a new connection is closed as it comes, before
 * a byte of it is read (a TLS one before its handshake).
 */
import type { Server, Socket } from 'node:net';
import type { Config } from '../../src/config/options.ts';
import { addressKey, type SocketLimits } from '../../src/sockets/budget.ts';

/** Descriptors kept for files, git, Redis and the like when the total follows the process's limit. */
export function descriptorsKept(descriptorLimit: number): number {
  return Math.max(64, Math.floor(descriptorLimit / 10));
}

/** Connections one address (IPv6: one /64) may hold, and in all; 0: no limit. The same shape as the sockets' budget. */
type ConnectionLimits = SocketLimits;

/**
 * The limits the options ask for: the total never above the descriptors the process may open, less those kept;
 * one address's share (none with --trust-proxy or 0) never above half the total, so one address cannot take every place.
 */
export function connectionLimitsOf(config: Pick<Config, 'maxConnectionsPerAddress' | 'maxConnections' | 'trustProxy'>, descriptorLimit: number | undefined): ConnectionLimits {
  const available = descriptorLimit === undefined ? Infinity : Math.max(1, descriptorLimit - descriptorsKept(descriptorLimit));
  const total = Math.min(config.maxConnections === 0 ? Infinity : config.maxConnections, available);
  const perAddress = config.trustProxy || config.maxConnectionsPerAddress === 0 ? 0 : Math.min(config.maxConnectionsPerAddress, Math.max(1, Math.floor(total / 2)));
  return { perAddress, total: total === Infinity ? 0 : total };
}

/** How often at most a refused connection is logged: an attacker must not fill the log either. */
const NOTICE_EVERY_MS = 60_000;

/** Logs a line at most once every NOTICE_EVERY_MS. */
function occasionally(log: (line: string) => void, now: () => number): (line: string) => void {
  let noticedAt = -Infinity;
  return (line) => {
    if (now() - noticedAt < NOTICE_EVERY_MS) return;
    noticedAt = now();
    log(line);
  };
}

export function limitConnections(server: Server, limits: ConnectionLimits, log: (line: string) => void, now: () => number = Date.now): void {
  if (limits.total > 0) {
    const notice = occasionally(log, now);
    server.maxConnections = limits.total;
    server.on('drop', () => notice(`connections: ${limits.total} open, the most --max-connections allows; new ones are closed as they come (logged once a minute at most)`));
  }
  if (limits.perAddress === 0) return;
  const notice = occasionally(log, now);
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress ?? '');
    const count = open.get(key) ?? 0;
    if (count >= limits.perAddress) {
      socket.destroy();
      notice(`connections: ${key} holds ${count}, the most --max-connections-per-address allows; its new ones are closed as they come (logged once a minute at most)`);
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = open.get(key)! - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
