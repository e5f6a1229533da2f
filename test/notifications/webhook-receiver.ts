import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WAIT_MS } from './support.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook endpoint on loopback, as a receiver of WebhookChannel2023 notifications runs one: an HTTP
 * server that keeps what it is sent, answers each POST with the next status of `statuses` (then 200), and
 * lets a test wait for the next request.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Statuses to answer before answering 200, in order. */
  statuses: number[] = [];
  /** Paths answered with a redirect (the status and where to), every time, before `statuses` are looked at. */
  readonly redirects = new Map<string, { status: number; location: string }>();
  /** Checks each request before it is answered; a throw answers 401 and the request is not kept. */
  verify?: (request: Received, url: string) => Promise<void>;
  readonly verified: Received[] = [];
  /** Every request that arrived, kept or not: its method and path. */
  readonly arrived: string[] = [];
  readonly #server: Server;
  #waiters: Array<() => void> = [];
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body };
        this.arrived.push(`${req.method} ${request.path}`);
        void (async () => {
          const redirect = this.redirects.get(request.path);
          if (redirect) {
            this.received.push(request);
            res.writeHead(redirect.status, { location: redirect.location }).end();
            for (const wake of this.#waiters.splice(0)) wake();
            return;
          }
          const status = this.statuses.shift() ?? 200;
          if (this.verify) {
            try {
              await this.verify(request, `${this.url.replace(/\/$/, '')}${req.url}`);
              this.verified.push(request);
            } catch (error) {
              res.writeHead(401).end(String(error));
              return;
            }
          }
          this.received.push(request);
          res.writeHead(status).end();
          for (const wake of this.#waiters.splice(0)) wake();
        })();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/`;
    return this;
  }

  /** Waits until `count` requests arrived in all; fails after WAIT_MS. */
  waitFor(count: number): Promise<Received[]> {
    return this.#until(() => this.received.length >= count, `${count} webhook requests`);
  }

  /** Waits until `count` requests (one without) for `path` arrived. */
  async waitForPath(path: string, count = 1): Promise<void> {
    await this.#until(() => this.received.filter((request) => request.path === path).length >= count, `${count} webhook requests for ${path}`);
  }

  async #until(done: () => boolean, what: string): Promise<Received[]> {
    const deadline = Date.now() + WAIT_MS * 4;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} in time; received ${JSON.stringify(this.received.map((request) => request.path))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.received;
  }

  /** The notifications received at a path, parsed. */
  notifications(path: string): Array<Record<string, unknown>> {
    return this.received.filter((request) => request.path === path).map((request) => JSON.parse(request.body) as Record<string, unknown>);
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
