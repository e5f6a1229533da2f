/**
 * Mastodon's list paging: ids sort as strings in time order (svc makes them so), `max_id`, `since_id`,
 * `min_id` and `limit` pick a page, and a `Link` header names the next (older) and previous (newer) pages.
 */

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 40;
/** Longest page of accounts or notifications, as Mastodon's (`limit` up to 80). */
export const MAX_ACCOUNT_PAGE = 80;

export interface Paged<T> {
  items: T[];
  link: string | null;
}

function limitOf(text: string | undefined, max: number): number {
  const limit = Number(text);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, max) : Math.min(DEFAULT_LIMIT, max);
}

/** One page of `all` (any order), newest first, with the `Link` header for `url`. */
export function pageOf<T extends { id: string }>(all: readonly T[], url: URL, max = MAX_LIMIT): Paged<T> {
  const query = url.searchParams;
  const maxId = query.get('max_id') || null;
  const sinceId = query.get('since_id') || null;
  const minId = query.get('min_id') || null;
  const limit = limitOf(query.get('limit') ?? undefined, max);
  const newestFirst = [...all]
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .filter((item) => (maxId === null || item.id < maxId) && (sinceId === null || item.id > sinceId) && (minId === null || item.id > minId));
  // min_id asks for the page just after it (the oldest of the newer ones); the others start at the newest.
  const items = minId !== null ? newestFirst.slice(Math.max(0, newestFirst.length - limit)) : newestFirst.slice(0, limit);
  if (items.length === 0) return { items, link: null };
  const pageUrl = (name: string, id: string) => {
    const next = new URL(url);
    for (const key of ['max_id', 'since_id', 'min_id']) next.searchParams.delete(key);
    next.searchParams.set(name, id);
    return next.href;
  };
  const link = `<${pageUrl('max_id', items[items.length - 1]!.id)}>; rel="next", <${pageUrl('min_id', items[0]!.id)}>; rel="prev"`;
  return { items, link };
}
