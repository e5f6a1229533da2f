import type { Caller } from '../wac/access-control.ts';

/** Identifies the caller of a request. */
export type Authenticator = (request: Request) => Promise<Caller>;

/** Until an authentication method is enabled, every caller is anonymous. */
export const anonymous: Authenticator = async (request) => ({ webId: null, origin: request.headers.get('origin') });
