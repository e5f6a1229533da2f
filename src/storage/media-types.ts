/** What a file name implies about its media type, so drivers store a type only when the name cannot tell. */

export const DEFAULT_MEDIA_TYPE = 'application/octet-stream';

/**
 * The longest content type a write may store (RFC 6838 allows 127 characters each for type and subtype;
 * the rest is room for parameters). Stored types are kept beside the body (the fs driver's sidecars, object
 * metadata) and not counted in quotas, so their length is capped instead.
 */
export const MAX_CONTENT_TYPE_LENGTH = 256;

const BY_EXTENSION: Record<string, string> = {
  acl: 'text/turtle',
  css: 'text/css',
  csv: 'text/csv',
  gif: 'image/gif',
  htm: 'text/html',
  html: 'text/html',
  ico: 'image/vnd.microsoft.icon',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  js: 'text/javascript',
  json: 'application/json',
  jsonld: 'application/ld+json',
  md: 'text/markdown',
  mjs: 'text/javascript',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  n3: 'text/n3',
  nq: 'application/n-quads',
  nt: 'application/n-triples',
  pdf: 'application/pdf',
  png: 'image/png',
  svg: 'image/svg+xml',
  trig: 'application/trig',
  ttl: 'text/turtle',
  txt: 'text/plain',
  wasm: 'application/wasm',
  webp: 'image/webp',
  xml: 'application/xml',
  zip: 'application/zip',
};

/** The media type a name implies, from its extension; the default when it has none we know. */
export function mediaTypeForName(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return DEFAULT_MEDIA_TYPE;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? DEFAULT_MEDIA_TYPE;
}

/** `text/turtle; charset=utf-8` -> `text/turtle`. */
export function essenceOf(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
