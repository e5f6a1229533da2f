/**
 * The outbound fetch on Cloudflare Workers, over the global `fetch`: a Worker cannot resolve names itself,
 * so only literal loopback, private, link-local and special addresses and `localhost` names are refused
 * before asking; Cloudflare's network does not route requests from Workers to private addresses anyway.
 * Redirects are followed here (`redirect: 'manual'`), so every hop passes the same check.
 */
import { outboundFetch, type SingleHopFetch } from '../../src/http/outbound-fetch.ts';
import type { OutboundFetch } from '../../src/platform.ts';

const globalHop: SingleHopFetch = (url, init) => fetch(url, { ...init, redirect: 'manual' });

export function workersOutboundFetch(allowPrivate: boolean): OutboundFetch {
  return outboundFetch(globalHop, { allowPrivate });
}
