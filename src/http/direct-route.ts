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
  answer: (request: Request) => Promise<Response>,
  finish: (request: Request, response: Response) => void,
  log: (line: string) => void,
): (request: Request) => Promise<Response> | null {
  const answerDirectly = async (request: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await answer(request);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      response = errorToResponse(error, log);
    }
    try {
      finish(request, response);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      response = errorToResponse(error, log);
    }
    // A finished answer to HEAD has no body already (finishedResponse).
    return request.method === 'HEAD' && !isFinished(response) ? new Response(null, response) : response;
  };
  return (request) => {
    const matched = app.router.match(request.method === 'HEAD' ? 'GET' : request.method, app.getPath(request))[0];
    if (matched.length !== chain.length) return null;
    // A loop, not a closure per request: this runs on every GET.
    for (let index = 0; index < chain.length; index++) if (matched[index]![0][0] !== chain[index]) return null;
    return answerDirectly(request);
  };
}
