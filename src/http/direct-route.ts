/**
 * Requests that Hono would hand to a known chain of handlers alone, answered by the same work without
 * Hono's context and chain of promises (a GET of a small resource is mostly such overhead otherwise).
 */
import type { Hono } from 'hono';
import { errorToResponse } from './errors.ts';
import { isFinished } from './headers.ts';

/**
 * The direct answer of a request whose handlers in `app` would be exactly `chain` (the router decides, so a
 * route or middleware added later takes its requests back), or null for Hono to answer. `answer` does the
 * chain's work; as Hono would: an error thrown becomes its problem answer, then `finish` adds its headers,
 * and to HEAD goes the answer without a body.
 */
export function directRoute(
  app: Hono,
  chain: readonly unknown[],
  answer: (request: Request) => Response | Promise<Response>,
  finish: (request: Request, response: Response) => void,
  log: (line: string) => void,
): (request: Request) => Response | Promise<Response> | null {
  const failed = (error: unknown): Response => {
    if (!(error instanceof Error)) throw error;
    return errorToResponse(error, log);
  };
  const finished = (request: Request, answered: Response): Response => {
    let response = answered;
    try {
      finish(request, response);
    } catch (error) {
      response = failed(error);
    }
    // A finished answer to HEAD has no body already (finishedResponse).
    return request.method === 'HEAD' && !isFinished(response) ? new Response(null, response) : response;
  };
  // An answer made at once goes out at once: the Node adapter then writes it without its asynchronous path.
  const answerDirectly = (request: Request): Response | Promise<Response> => {
    let answered: Response | Promise<Response>;
    try {
      answered = answer(request);
    } catch (error) {
      answered = failed(error);
    }
    if (!(answered instanceof Promise)) return finished(request, answered);
    return answered.then(
      (response) => finished(request, response),
      (error: unknown) => finished(request, failed(error)),
    );
  };
  return (request) => {
    const matched = app.router.match(request.method === 'HEAD' ? 'GET' : request.method, app.getPath(request))[0];
    if (matched.length !== chain.length) return null;
    // A loop, not a closure per request: this runs on every GET.
    for (let index = 0; index < chain.length; index++) if (matched[index]![0][0] !== chain[index]) return null;
    return answerDirectly(request);
  };
}
