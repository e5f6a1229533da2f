/** Answers of the Mastodon API: JSON that is never cached, lists with their paging link, Mastodon's 404. */
import { mastodonError } from './auth.ts';

export const notFound = (what = 'Record not found') => mastodonError(404, what);

export function listResponse(items: unknown[], link: string | null): Response {
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (link) headers.link = link;
  return Response.json(items, { headers });
}

export const json = (body: unknown) => Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
