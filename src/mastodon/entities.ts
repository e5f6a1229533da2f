/**
 * Mastodon API entities (https://docs.joinmastodon.org/entities/) with the field names and types Mastodon
 * documents, built from what svc knows: an account is a pod and its owner, its id the pod name.
 */
import type { App } from '../oauth/apps.ts';

/** What an account entity is made of. */
export interface PodAccount {
  /** The pod name: the account's `id` and `username`. */
  name: string;
  webId: string;
  podUri: string;
  created: string;
  /** The name shown; the pod name when not given. */
  displayName?: string;
  /** A short text about the account (plain text). */
  summary?: string;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A plain avatar and header, so clients that load `avatar` and `header` get an image rather than a 404. */
const AVATAR = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1" fill="#8c8dff"/></svg>')}`;
const HEADER = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 3 1"><rect width="3" height="1" fill="#d9e1e8"/></svg>')}`;

/** https://docs.joinmastodon.org/entities/Account/ */
export function accountEntity(pod: PodAccount): Record<string, unknown> {
  return {
    id: pod.name,
    username: pod.name,
    acct: pod.name,
    display_name: pod.displayName ?? pod.name,
    locked: false,
    bot: false,
    discoverable: false,
    indexable: false,
    group: false,
    created_at: pod.created,
    note: pod.summary ? `<p>${escapeHtml(pod.summary)}</p>` : '',
    url: pod.podUri,
    uri: pod.webId,
    avatar: AVATAR,
    avatar_static: AVATAR,
    header: HEADER,
    header_static: HEADER,
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    last_status_at: null,
    hide_collections: false,
    noindex: true,
    emojis: [],
    roles: [],
    fields: [],
  };
}

/** https://docs.joinmastodon.org/entities/Account/#CredentialAccount: the account with its `source` and `role`. */
export function credentialAccountEntity(pod: PodAccount): Record<string, unknown> {
  return {
    ...accountEntity(pod),
    source: { privacy: 'public', sensitive: false, language: null, note: pod.summary ?? '', fields: [], follow_requests_count: 0, hide_collections: false, discoverable: false, indexable: false },
    role: { id: '-99', name: '', permissions: '0', color: '', highlighted: false },
  };
}

/** https://docs.joinmastodon.org/entities/Application/ as `POST /api/v1/apps` answers it (with the secret). */
export function applicationEntity(app: App, secret?: string): Record<string, unknown> {
  return {
    id: app.clientId,
    name: app.name,
    website: app.website,
    scopes: app.scopes ?? [],
    redirect_uri: (app.redirectUris ?? []).join('\n'),
    redirect_uris: app.redirectUris ?? [],
    vapid_key: '',
    ...(secret !== undefined && { client_id: app.clientId, client_secret: secret, client_secret_expires_at: 0 }),
  };
}

/** What the instance entities are made of. */
export interface InstanceFacts {
  origin: string;
  version: string;
  userCount: number;
  registrations: boolean;
  approvalRequired: boolean;
  invitesEnabled: boolean;
  /** The streaming API's URL (`ws://...`), when it is served. */
  streaming: string | null;
  /** Uploads, when they are taken: their types, size limit and how many a status holds. */
  media: { types: readonly string[]; sizeLimit: number; attachments: number } | null;
}

/** Mastodon clients compare `version` with Mastodon's own: this names the API level svc follows, then svc's own. */
const API_LEVEL = '4.3.0';
const statusLimits = (facts: InstanceFacts) => ({ max_characters: 500, max_media_attachments: facts.media?.attachments ?? 0, characters_reserved_per_url: 23 });
const POLLS = { max_options: 0, max_characters_per_option: 0, min_expiration: 0, max_expiration: 0 };
const mediaLimits = (facts: InstanceFacts) => ({
  supported_mime_types: facts.media?.types ?? [],
  image_size_limit: facts.media?.sizeLimit ?? 0,
  image_matrix_limit: facts.media ? 33_177_600 : 0,
  video_size_limit: 0,
  video_frame_rate_limit: 0,
  video_matrix_limit: 0,
});
const DESCRIPTION = 'A Solid pod server (svc) with a Mastodon-compatible API.';

const versionOf = (facts: InstanceFacts) => `${API_LEVEL} (compatible; svc ${facts.version})`;

/** https://docs.joinmastodon.org/entities/V1_Instance/ */
export function instanceV1Entity(facts: InstanceFacts): Record<string, unknown> {
  const host = new URL(facts.origin).host;
  return {
    uri: host,
    title: host,
    short_description: DESCRIPTION,
    description: DESCRIPTION,
    email: '',
    version: versionOf(facts),
    // An empty URL where streaming is not served: Elk and Phanpy then open no socket.
    urls: { streaming_api: facts.streaming ?? '' },
    stats: { user_count: facts.userCount, status_count: 0, domain_count: 0 },
    thumbnail: null,
    languages: ['en'],
    registrations: facts.registrations,
    approval_required: facts.approvalRequired,
    invites_enabled: facts.invitesEnabled,
    configuration: {
      accounts: { max_featured_tags: 0 },
      statuses: statusLimits(facts),
      media_attachments: mediaLimits(facts),
      polls: POLLS,
    },
    contact_account: null,
    rules: [],
  };
}

/** https://docs.joinmastodon.org/entities/Instance/ */
export function instanceV2Entity(facts: InstanceFacts): Record<string, unknown> {
  const host = new URL(facts.origin).host;
  return {
    domain: host,
    title: host,
    version: versionOf(facts),
    source_url: '',
    description: DESCRIPTION,
    usage: { users: { active_month: facts.userCount } },
    thumbnail: { url: HEADER },
    icon: [],
    languages: ['en'],
    configuration: {
      urls: { streaming: facts.streaming ?? '', status: null },
      vapid: { public_key: '' },
      accounts: { max_featured_tags: 0, max_pinned_statuses: 0 },
      statuses: statusLimits(facts),
      media_attachments: { ...mediaLimits(facts), description_limit: facts.media ? 1500 : 0 },
      polls: POLLS,
      translation: { enabled: false },
    },
    registrations: { enabled: facts.registrations, approval_required: facts.approvalRequired, message: null, url: null },
    api_versions: { mastodon: 2 },
    contact: { email: '', account: null },
    rules: [],
  };
}
