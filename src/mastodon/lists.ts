/**
 * Lists (https://docs.joinmastodon.org/methods/lists/): named sets of followed accounts whose posts a list
 * timeline shows; kept per account (account-state.ts) with the actor URLs of their members.
 */
import { validation } from './account-state.ts';
import { booleanOf, stringOf } from './parameters.ts';

type Json = Record<string, unknown>;

export const MAX_LISTS = 50;
export const MAX_LIST_MEMBERS = 500;
const MAX_TITLE_LENGTH = 200;
const REPLIES_POLICIES = ['followed', 'list', 'none'] as const;

export interface StoredList {
  id: string;
  title: string;
  repliesPolicy: (typeof REPLIES_POLICIES)[number];
  exclusive: boolean;
  /** Actor URLs. */
  members: string[];
}

export interface ListDocument {
  lists: StoredList[];
}

export const NO_LISTS: ListDocument = { lists: [] };

/** https://docs.joinmastodon.org/entities/List/ */
export function listEntity(list: StoredList): Json {
  return { id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive };
}

/** A list as `POST`/`PUT /api/v1/lists` make or change it: `title`, `replies_policy`, `exclusive`. */
export function applyListParameters(parameters: Json, base: StoredList | null, id: string): StoredList {
  const title = stringOf(parameters.title) ?? base?.title;
  if (!title || title.trim() === '') throw validation("Title can't be blank");
  if (title.length > MAX_TITLE_LENGTH) throw validation(`Title is too long (at most ${MAX_TITLE_LENGTH} characters)`);
  const policy = stringOf(parameters.replies_policy) ?? base?.repliesPolicy ?? 'list';
  if (!(REPLIES_POLICIES as readonly string[]).includes(policy)) throw validation(`Replies policy must be one of ${REPLIES_POLICIES.join(', ')}`);
  return { id: base?.id ?? id, title, repliesPolicy: policy as StoredList['repliesPolicy'], exclusive: booleanOf(parameters.exclusive, base?.exclusive ?? false), members: base?.members ?? [] };
}
