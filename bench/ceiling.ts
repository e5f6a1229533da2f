/**
 * The ceiling: a bare Hono-on-Node handler answering the same 1 KB body the Solid servers serve, so each
 * workload can be reported as a fraction of what a Node server can do on this machine at all.
 *
 *   node --import tsx bench/ceiling.ts <port>
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { SMALL_JSON_LD } from './workloads.ts';

const port = Number(process.argv[2]);
if (!Number.isInteger(port)) {
  console.error('usage: ceiling.ts <port>');
  process.exit(2);
}
const app = new Hono();
app.get('*', (c) => c.body(SMALL_JSON_LD, 200, { 'content-type': 'application/ld+json' }));
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
