/**
 * How many long-lived connections the server holds at once: at most `perAddress` from one client address and
 * `total` from all. Every such endpoint shares one budget, so a client cannot multiply its share by spreading
 * over endpoints: the app admits each WebSocket upgrade here before any feature sees it (`src/app.ts`, for the
 * notifications, the Nostr relay, live reload, and any feature that returns an `upgrade`), and a streaming HTTP
 * response (a long-lived `fetch` body) takes a ticket with `admit` and releases it when its stream ends
 * (see docs/architecture.md, "Long-lived connections").
 */
import type { Config } from '../config/options.ts';
import { problemResponse } from '../http/problem.ts';

export interface SocketLimits {
  /** Connections one address may hold; 0: no limit. */
  perAddress: number;
  /** Connections in all; 0: no limit. */
  total: number;
}

/**
 * The limits the options ask for, the total kept to half the file descriptors the process may open (when the
 * runtime can tell): the other half stays for plain HTTP and files. `notice` says so when that lowers it.
 */
export function socketLimitsOf(config: Pick<Config, 'maxSocketsPerAddress' | 'maxSockets'>, descriptorLimit: number | undefined): { limits: SocketLimits; notice?: string } {
  const half = descriptorLimit === undefined ? Infinity : Math.max(1, Math.floor(descriptorLimit / 2));
  const asked = config.maxSockets === 0 ? Infinity : config.maxSockets;
  if (asked <= half) return { limits: { perAddress: config.maxSocketsPerAddress, total: config.maxSockets } };
  return {
    limits: { perAddress: config.maxSocketsPerAddress, total: half },
    notice: `WebSockets: at most ${half} open at once, half of the ${descriptorLimit} file descriptors this process may open (--max-sockets asks for ${config.maxSockets === 0 ? 'no limit' : config.maxSockets}; raise the limit with ulimit -n).`,
  };
}

/** A place in the budget: released once, by whoever ends the connection (releasing again does nothing). */
export interface SocketTicket {
  release(): void;
}

export type Admission = { ticket: SocketTicket } | { refuse: Response };

/** How long a client refused for the total is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 30;

/**
 * The key an address is counted under: IPv4 as is (also when written IPv4-mapped, `::ffff:192.0.2.1`), IPv6
 * by its /64 prefix, since one host is usually given a whole /64 and could otherwise take a fresh address
 * per connection. Anything else (a runtime's own naming) as is.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!.toLowerCase();
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export class SocketBudget {
  readonly limits: SocketLimits;
  readonly #byAddress = new Map<string, number>();
  #total = 0;

  constructor(limits: SocketLimits) {
    this.limits = limits;
  }

  /** Connections held now. */
  get open(): number {
    return this.#total;
  }

  /** Connections held now from one address (by its key, see `addressKey`). */
  openFrom(address: string): number {
    return this.#byAddress.get(addressKey(address)) ?? 0;
  }

  /**
   * A ticket for one more connection, or the answer refusing it: 429 when the address holds its share, 503
   * when the server holds its total. Without an address (a runtime that cannot tell) only the total applies.
   */
  admit(address: string | undefined): Admission {
    const { perAddress, total } = this.limits;
    if (total > 0 && this.#total >= total) {
      return {
        refuse: problemResponse(503, `The server holds as many long-lived connections (WebSockets, notification streams) as it allows (${total}); try again later.`, {
          type: 'urn:svc:problem:socket-capacity',
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
          extra: { limit: total },
        }),
      };
    }
    const key = address === undefined ? undefined : addressKey(address);
    const held = key === undefined ? 0 : (this.#byAddress.get(key) ?? 0);
    if (key !== undefined && perAddress > 0 && held >= perAddress) {
      return {
        refuse: problemResponse(429, `Your address holds ${held} long-lived connections (WebSockets, notification streams) to this server, the most it allows from one address; close one before opening another.`, {
          type: 'urn:svc:problem:too-many-sockets',
          extra: { limit: perAddress },
        }),
      };
    }
    this.#total++;
    if (key !== undefined) this.#byAddress.set(key, held + 1);
    let released = false;
    return {
      ticket: {
        release: () => {
          if (released) return;
          released = true;
          this.#total--;
          if (key === undefined) return;
          const left = (this.#byAddress.get(key) ?? 1) - 1;
          if (left > 0) this.#byAddress.set(key, left);
          else this.#byAddress.delete(key);
        },
      },
    };
  }
}
