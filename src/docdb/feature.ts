/**
 * `--docdb`: JSON-LD documents under `/db/<user>/...` kept in a document database (MongoDB on Node) instead
 * of the resource storage. Access follows the pod's ACLs, documents count against the pod's quota, and a
 * database that cannot be reached makes these routes answer 503 while every other route keeps working.
 */
import type { Context, Hono } from 'hono';
import type { FeatureCode } from '../features/feature.ts';
import { HttpProblem } from '../http/problem.ts';
import { DatabaseAvailability } from './availability.ts';
import { docdbRequestHandler } from './routes.ts';
import { DocumentStoreUnavailable } from './store.ts';
import { docdbTargetOf } from './target.ts';

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
export const RETRY_AFTER_SECONDS = 5;

export const docdbCode: FeatureCode = {
  create(context) {
    // A platform without it was refused at start (descriptor.ts).
    const store = context.platform.documentStore!;
    const availability = new DatabaseAvailability(store, context.log, context.now);
    const serve = docdbRequestHandler(context, store, availability);
    return {
      async init() {
        // A database that is down at startup must not stop the server: /db/ answers 503 until it is back.
        try {
          await store.ping();
          context.log(`docdb: documents under /db/ are kept in ${store.description}.`);
        } catch (error) {
          availability.downAtStartup();
          context.log(
            `docdb: cannot reach ${store.description} (${(error as Error).message}); /db/ answers 503 until it is reachable, all other routes are served.`,
          );
        }
      },
      routes(app: Hono) {
        app.all('/db/*', async (c: Context, next) => {
          // CORS preflights are answered as for every other path.
          if (c.req.method === 'OPTIONS') return next();
          const target = docdbTargetOf(new URL(c.req.url).pathname, context.quotas.scope);
          if (!target) return next();
          try {
            const response = await serve(c.req.raw, target);
            availability.reachable();
            return response;
          } catch (error) {
            if (!(error instanceof DocumentStoreUnavailable)) throw error;
            availability.failed(error);
            throw new HttpProblem(503, 'The document database cannot be reached right now; try again shortly.', {
              type: 'docdb-unavailable',
              headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
            });
          }
        });
      },
    };
  },
};
