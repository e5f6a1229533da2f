/**
 * Keyword filters (https://docs.joinmastodon.org/methods/filters/, v2, with the v1 list derived from them):
 * kept per account, applied to the statuses the API answers in the filter's contexts. A match adds a
 * `filtered` result to the status (clients show it behind a warning, or blurred); `hide` filters drop it.
 */
import { validation } from './account-state.ts';
import { booleanOf, listOf, stringOf } from './parameters.ts';

type Json = Record<string, unknown>;

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];
const ACTIONS = ['warn', 'hide', 'blur'] as const;

export const MAX_FILTERS = 100;
export const MAX_KEYWORDS = 100;
const MAX_KEYWORD_LENGTH = 200;
const MAX_TITLE_LENGTH = 200;

export interface StoredKeyword {
  id: string;
  keyword: string;
  wholeWord: boolean;
}

export interface StoredFilter {
  id: string;
  title: string;
  context: FilterContext[];
  action: (typeof ACTIONS)[number];
  expiresAt: string | null;
  keywords: StoredKeyword[];
}

export interface FilterDocument {
  filters: StoredFilter[];
}

export const NO_FILTERS: FilterDocument = { filters: [] };

/** A fresh id: random, unguessable, never reused. */
export function newId(): string {
  return [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function filterEntity(filter: StoredFilter): Json {
  return {
    id: filter.id,
    title: filter.title,
    context: filter.context,
    expires_at: filter.expiresAt,
    filter_action: filter.action,
    keywords: filter.keywords.map((keyword) => ({ id: keyword.id, keyword: keyword.keyword, whole_word: keyword.wholeWord })),
    statuses: [],
  };
}

/** The v1 form: one filter per keyword (https://docs.joinmastodon.org/entities/V1_Filter/). */
export function v1FilterEntities(filter: StoredFilter): Json[] {
  return filter.keywords.map((keyword) => ({ id: keyword.id, phrase: keyword.keyword, context: filter.context, whole_word: keyword.wholeWord, expires_at: filter.expiresAt, irreversible: filter.action === 'hide' }));
}

/**
 * A filter as created or changed by `POST`/`PUT /api/v2/filters`: `title`, `context[]`, `filter_action`,
 * `expires_in` (seconds; empty for never), and `keywords_attributes[]` (`keyword`, `whole_word`, and for a
 * change `id` and `_destroy`).
 */
export function applyFilterParameters(parameters: Json, base: StoredFilter | null, now: number): StoredFilter {
  const title = stringOf(parameters.title) ?? base?.title;
  if (!title || title.trim() === '') throw validation("Title can't be blank");
  if (title.length > MAX_TITLE_LENGTH) throw validation(`Title is too long (at most ${MAX_TITLE_LENGTH} characters)`);
  const contextGiven = parameters.context !== undefined;
  const context = contextGiven ? listOf(parameters, 'context') : (base?.context ?? []);
  if (context.length === 0 || context.some((item) => !(FILTER_CONTEXTS as readonly string[]).includes(item))) throw validation(`Context must be some of ${FILTER_CONTEXTS.join(', ')}`);
  const action = stringOf(parameters.filter_action) ?? base?.action ?? 'warn';
  if (!(ACTIONS as readonly string[]).includes(action)) throw validation(`Filter action must be one of ${ACTIONS.join(', ')}`);
  let expiresAt = base?.expiresAt ?? null;
  if (parameters.expires_in !== undefined) {
    const seconds = Number(parameters.expires_in);
    expiresAt = parameters.expires_in === '' || parameters.expires_in === null ? null : Number.isFinite(seconds) && seconds > 0 ? new Date(now + seconds * 1000).toISOString() : null;
  }
  const keywords = [...(base?.keywords ?? [])];
  const attributes = parameters.keywords_attributes;
  const changes = Array.isArray(attributes) ? attributes : attributes && typeof attributes === 'object' ? Object.values(attributes) : [];
  for (const change of changes) {
    if (typeof change !== 'object' || change === null) continue;
    const fields = change as Json;
    const id = stringOf(fields.id);
    const index = id === null ? -1 : keywords.findIndex((keyword) => keyword.id === id);
    if (id !== null && index < 0) throw validation(`No keyword ${id} in this filter`);
    if (booleanOf(fields._destroy)) {
      if (index >= 0) keywords.splice(index, 1);
      continue;
    }
    const text = stringOf(fields.keyword) ?? (index >= 0 ? keywords[index]!.keyword : null);
    if (!text || text.trim() === '') throw validation("Keyword can't be blank");
    if (text.length > MAX_KEYWORD_LENGTH) throw validation(`Keyword is too long (at most ${MAX_KEYWORD_LENGTH} characters)`);
    const wholeWord = booleanOf(fields.whole_word, index >= 0 ? keywords[index]!.wholeWord : true);
    const keyword = { id: index >= 0 ? keywords[index]!.id : newId(), keyword: text, wholeWord };
    if (index >= 0) keywords[index] = keyword;
    else keywords.push(keyword);
  }
  if (keywords.length > MAX_KEYWORDS) throw validation(`A filter has at most ${MAX_KEYWORDS} keywords`);
  return { id: base?.id ?? newId(), title, context: context as FilterContext[], action: action as StoredFilter['action'], expiresAt, keywords };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text of some HTML, for matching: tags dropped, the usual entities read. */
export function textOf(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export interface FilterMatch {
  filter: StoredFilter;
  keywords: string[];
}

/** The filters of one account for one context, ready to test statuses. */
export class FilterSet {
  readonly #active: { filter: StoredFilter; tests: { keyword: string; pattern: RegExp }[] }[];

  constructor(document: FilterDocument, context: FilterContext, now: number) {
    this.#active = document.filters
      .filter((filter) => filter.context.includes(context) && (filter.expiresAt === null || Date.parse(filter.expiresAt) > now))
      .map((filter) => ({
        filter,
        tests: filter.keywords.map((keyword) => ({
          keyword: keyword.keyword,
          // Whole words as Mastodon matches them: not inside a longer word.
          pattern: new RegExp(keyword.wholeWord ? `(?<![\\p{L}\\p{N}_])${escapeRegExp(keyword.keyword)}(?![\\p{L}\\p{N}_])` : escapeRegExp(keyword.keyword), 'iu'),
        })),
      }));
  }

  get empty(): boolean {
    return this.#active.length === 0;
  }

  /** The filters `text` matches, with the keywords that matched. */
  match(text: string): FilterMatch[] {
    const matches: FilterMatch[] = [];
    for (const { filter, tests } of this.#active) {
      const keywords = tests.filter((test) => test.pattern.test(text)).map((test) => test.keyword);
      if (keywords.length > 0) matches.push({ filter, keywords });
    }
    return matches;
  }
}

export const NO_FILTER_SET = new FilterSet(NO_FILTERS, 'home', 0);
