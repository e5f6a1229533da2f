import type { Authenticator } from '../auth/authenticate.ts';
import type { Caller } from '../wac/access-control.ts';

/**
 * Authenticates each request at most once, however many steps ask (the rate limiter and the handler):
 * credentials such as DPoP proofs must not be verified twice.
 */
export function oncePerRequest(authenticate: Authenticator): Authenticator {
  const callers = new WeakMap<Request, Caller | Promise<Caller>>();
  return (request) => {
    let caller = callers.get(request);
    if (!caller) callers.set(request, (caller = authenticate(request)));
    return caller;
  };
}
