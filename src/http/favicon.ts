/**
 * `/favicon.ico`, which browsers ask for on every page: a resource stored at that path answers as any other
 * (with its access rules); otherwise the server's own icon, 200 and cacheable for a day, without a storage
 * read beyond that one lookup.
 */
import type { MiddlewareHandler } from 'hono';
import type { StorageDriver } from '../storage/types.ts';
import { FAVICON_BASE64 } from './favicon-data.ts';

export const FAVICON_PATH = '/favicon.ico';

let icon: Promise<{ bytes: Uint8Array<ArrayBuffer>; etag: string }> | undefined;
function iconOf(): Promise<{ bytes: Uint8Array<ArrayBuffer>; etag: string }> {
  icon ??= (async () => {
    const bytes = Uint8Array.from(atob(FAVICON_BASE64), (c) => c.charCodeAt(0));
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    return { bytes, etag: `"${[...digest.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}"` };
  })();
  return icon;
}

/** `storagePathOf`: where a stored favicon would be for this URL (the pod's, on a pod's host in subdomain mode). */
export function favicon(storage: StorageDriver, storagePathOf: (url: URL) => string): MiddlewareHandler {
  return async (c, next) => {
    if (await storage.head(storagePathOf(new URL(c.req.url)))) return next();
    const { bytes, etag } = await iconOf();
    const headers = { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400', ETag: etag };
    if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(c.req.method === 'HEAD' ? null : bytes, { headers: { ...headers, 'Content-Length': String(bytes.length) } });
  };
}
