/**
 * https://docs.joinmastodon.org/entities/Status/ from a status item and what the request knows around it:
 * counts of favourites, boosts and replies, the reader's own favourites, boosts and bookmarks, and the
 * reader's filters.
 */
import { hashName } from '../activitypub/paths.ts';
import type { Catalog } from './catalog.ts';
import { filterEntity, NO_FILTER_SET, textOf, type FilterSet } from './filters.ts';
import { accountIdOf } from './remote-accounts.ts';
import type { Attachment, StatusItem } from './timeline.ts';

type Json = Record<string, unknown>;

/** Who reads: the owner sees its own favourites and boosts; every account its bookmarks and filters. */
export interface Viewer {
  isOwner: boolean;
  bookmarks: ReadonlySet<string>;
  filters: FilterSet;
}

export const ANONYMOUS: Viewer = { isOwner: false, bookmarks: new Set(), filters: NO_FILTER_SET };

export interface RenderContext {
  catalog: Catalog;
  origin: string;
  ownerName: string;
  ownerEntity: Json;
  /** The Account entity of another server's actor. */
  remoteAccount(actorUrl: string): Promise<Json>;
  /** HTML as it may be served: kept safe on the way in, and made so again for what was stored before. */
  safeHtml(html: string): string;
  viewer: Viewer;
}

/** Where the owner's uploads are served: `/public/media/<id>.<ext>` of the pod at `/`. */
export const MEDIA_PATH = '/public/media/';

/** The Tag entity's `url`: this server's timeline of the tag. */
export const tagUrl = (origin: string, name: string) => `${origin}/api/v1/timelines/tag/${encodeURIComponent(name)}`;

function mediaType(type: string | null): string {
  if (type?.startsWith('image/')) return 'image';
  if (type?.startsWith('video/')) return 'video';
  if (type?.startsWith('audio/')) return 'audio';
  return 'unknown';
}

/** https://docs.joinmastodon.org/entities/MediaAttachment/ */
export function attachmentEntity(attachment: Attachment, id: string, remote: boolean): Json {
  const { width, height } = attachment;
  const size = width !== null && height !== null ? { width, height, size: `${width}x${height}`, aspect: width / height } : null;
  return {
    id,
    type: mediaType(attachment.mediaType),
    url: attachment.url,
    preview_url: attachment.url,
    remote_url: remote ? attachment.url : null,
    preview_remote_url: null,
    text_url: null,
    meta: size ? { original: size, small: size } : {},
    description: attachment.description,
    blurhash: null,
  };
}

export class StatusRenderer {
  readonly #context: RenderContext;

  constructor(context: RenderContext) {
    this.#context = context;
  }

  get context(): RenderContext {
    return this.#context;
  }

  #accountId(actor: string): Promise<string> {
    return actor === this.#context.catalog.owner ? Promise.resolve(this.#context.ownerName) : accountIdOf(actor);
  }

  async #attachments(item: StatusItem): Promise<Json[]> {
    const own = item.author === this.#context.catalog.owner;
    return Promise.all(
      item.attachments.map(async (attachment) => {
        const local = own && attachment.url.startsWith(this.#context.origin + MEDIA_PATH) ? attachment.url.slice((this.#context.origin + MEDIA_PATH).length).replace(/\.[^.]*$/, '') : null;
        return attachmentEntity(attachment, local ?? (await hashName(attachment.url)).slice(0, 16), !own);
      }),
    );
  }

  /** The entity, or null for a status the reader's filters hide or a boost of a post no longer known. */
  async entity(item: StatusItem, text: string | null = null): Promise<Json | null> {
    const { catalog, viewer } = this.#context;
    if (item.reblogOf !== null) {
      const original = (await catalog.byUri()).get(item.reblogOf);
      const inner = original ? await this.entity(original) : null;
      if (!inner) return null;
      return { ...(await this.#plain(item, text)), reblog: inner, reblogged: viewer.isOwner };
    }
    const entity = await this.#plain(item, text);
    if (viewer.filters.empty) return entity;
    const matches = viewer.filters.match([textOf(item.content), item.summary ? textOf(item.summary) : '', ...item.attachments.map((attachment) => attachment.description ?? '')].join('\n'));
    if (matches.some((match) => match.filter.action === 'hide')) return null;
    return { ...entity, filtered: matches.map((match) => ({ filter: filterEntity(match.filter), keyword_matches: match.keywords, status_matches: null })) };
  }

  /** The entities of a list, in its order, without those that are hidden. */
  async entities(items: readonly StatusItem[]): Promise<Json[]> {
    return (await Promise.all(items.map((item) => this.entity(item)))).filter((entity): entity is Json => entity !== null);
  }

  async #plain(item: StatusItem, text: string | null): Promise<Json> {
    const { catalog, viewer, origin } = this.#context;
    const own = item.author === catalog.owner;
    const account = own ? this.#context.ownerEntity : await this.#context.remoteAccount(item.author);
    const parent = item.inReplyTo === null ? undefined : (await catalog.byUri()).get(item.inReplyTo);
    const { favourites, reblogs, replies } = await catalog.interactions();
    const mentions = await Promise.all(
      item.mentions.map(async (mention) => {
        const acct = mention.name.replace(/^@/, '');
        return { id: await this.#accountId(mention.href), username: acct.split('@')[0]!, url: mention.href, acct };
      }),
    );
    return {
      id: item.id,
      uri: item.uri,
      url: item.url ?? item.uri,
      created_at: item.published,
      account,
      content: this.#context.safeHtml(item.content),
      text,
      visibility: 'public',
      sensitive: item.sensitive || item.summary !== null,
      spoiler_text: item.summary ? textOf(item.summary) : '',
      media_attachments: await this.#attachments(item),
      application: null,
      mentions,
      tags: item.tags.map((name) => ({ name, url: tagUrl(origin, name) })),
      emojis: [],
      reblogs_count: reblogs.get(item.uri)?.length ?? 0,
      favourites_count: favourites.get(item.uri)?.length ?? 0,
      replies_count: replies.get(item.uri) ?? 0,
      in_reply_to_id: parent?.id ?? null,
      in_reply_to_account_id: parent ? await this.#accountId(parent.author) : null,
      reblog: null,
      poll: null,
      card: null,
      language: null,
      edited_at: item.edited,
      favourited: viewer.isOwner && (await catalog.liked()).has(item.uri),
      reblogged: viewer.isOwner && (await catalog.ownReblogs()).has(item.uri),
      muted: false,
      bookmarked: viewer.bookmarks.has(item.uri),
      pinned: false,
      filtered: [],
    };
  }
}
