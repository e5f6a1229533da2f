import type { OutboundFetch } from '../platform.ts';
import { OutboundFetchRefused, refuseUnsafeUrl } from './outbound-guard.ts';
import { SVC_VERSION } from './software.ts';

/** The limits of the outbound fetch. */
export interface OutboundLimits {
  /** Largest response body read, in bytes. */
  maxBytes: number;
  /** Time for the whole fetch, redirects and body included. */
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_OUTBOUND_LIMITS: OutboundLimits = {
  maxBytes: 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 5,
};

/** `svc/<version> (+<server URL>)`: who is asking, and where to find out more. */
export function userAgent(serverUrl: string | undefined): string {
  return `svc/${SVC_VERSION} (+${serverUrl ?? 'a Solid pod server'})`;
}

/**
 * One request to one URL, without following redirects: the runtime's connection, which may check the
 * resolved address (and must then connect to the address it checked). Its body is read by the caller.
 */
export type SingleHopFetch = (url: URL, init: { method: string; headers: Headers; body?: BodyInit | null; signal: AbortSignal }) => Promise<Response>;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A response body read whole, refused (and cancelled) once it passes `maxBytes`. */
export async function readLimited(response: Response, url: string, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body?.cancel();
    throw new OutboundFetchRefused(url, `the response is larger than ${maxBytes} bytes`);
  }
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new OutboundFetchRefused(url, `the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The answer of the last hop, with the body read (or none), and the URL that gave it. */
function answerOf(response: Response, bytes: Uint8Array<ArrayBuffer> | null, url: URL): Response {
  const answer = new Response(bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(answer, 'url', { value: url.href });
  return answer;
}

/**
 * The outbound fetch over a runtime's single-hop fetch: every URL (the first and each redirect target) is
 * checked before it is asked (`refuseUnsafeUrl`), redirects are followed here, at most
 * `maxRedirects`, the body is read whole up to `maxBytes` and everything must finish within `timeoutMs`.
 * Every request says who sends it (`userAgent`, with the server's URL once the runtime knows it).
 * The answer's `url` is the URL that answered last. With `redirect: 'manual'` a redirect is the answer
 * itself (its body left unread), for callers that must not send their request anywhere else.
 */
export function outboundFetch(
  hop: SingleHopFetch,
  options: { allowPrivate: boolean; limits?: Partial<OutboundLimits>; serverUrl?: () => string | undefined },
): OutboundFetch {
  const limits = { ...DEFAULT_OUTBOUND_LIMITS, ...options.limits };
  return async (input, init = {}) => {
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let url = new URL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? null;
    const headers = new Headers(init.headers);
    headers.set('user-agent', userAgent(options.serverUrl?.()));
    try {
      for (let redirects = 0; ; redirects++) {
        refuseUnsafeUrl(url, options.allowPrivate);
        const response = await hop(url, { method, headers: new Headers(headers), body, signal });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location !== null) {
          await response.body?.cancel();
          if (init.redirect === 'manual') return answerOf(response, null, url);
          if (redirects >= limits.maxRedirects) throw new OutboundFetchRefused(url.href, `more than ${limits.maxRedirects} redirects`);
          const next = new URL(location, url);
          // Credentials chosen for one origin are not sent to another.
          if (next.origin !== url.origin) headers.delete('authorization');
          if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
            method = method === 'HEAD' ? 'HEAD' : 'GET';
            body = null;
            headers.delete('content-type');
          }
          url = next;
          continue;
        }
        const bytes = method === 'HEAD' || NULL_BODY_STATUSES.has(response.status) ? null : await readLimited(response, url.href, limits.maxBytes);
        if (bytes === null) await response.body?.cancel();
        return answerOf(response, bytes, url);
      }
    } catch (error) {
      if (timeout.aborted && !(error instanceof OutboundFetchRefused)) throw new OutboundFetchRefused(url.href, `no complete answer within ${limits.timeoutMs} ms`);
      throw error;
    }
  };
}
