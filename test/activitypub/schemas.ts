/**
 * JSON Schemas the discovery documents and the actor must meet: the JRD of RFC 7033 §4.4, NodeInfo 2.1 (the
 * published schema, http://nodeinfo.diaspora.software/ns/schema/2.1), and the actor properties ActivityPub
 * §4.1 requires plus what Mastodon needs to verify signatures (publicKey with owner and PEM).
 */
import { Ajv } from 'ajv';

const absoluteUrl = { type: 'string', pattern: '^https?://[^\\s]+$' };

export const jrdSchema = {
  type: 'object',
  required: ['subject', 'links'],
  properties: {
    subject: { type: 'string', pattern: '^(acct:[^@\\s]+@[^\\s]+|https?://\\S+)$' },
    aliases: { type: 'array', items: { type: 'string' } },
    properties: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
    links: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rel'],
        properties: {
          rel: { type: 'string', minLength: 1 },
          type: { type: 'string' },
          href: { type: 'string' },
          titles: { type: 'object', additionalProperties: { type: 'string' } },
          properties: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
        },
      },
    },
  },
};

/** NodeInfo 2.1 as published (its `software.name` pattern, protocol and service enumerations, usage). */
export const nodeInfo21Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'software', 'protocols', 'services', 'openRegistrations', 'usage', 'metadata'],
  properties: {
    $schema: { type: 'string' },
    version: { enum: ['2.1'] },
    software: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'version'],
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9-]+$' },
        version: { type: 'string' },
        repository: { type: 'string' },
        homepage: { type: 'string' },
      },
    },
    protocols: {
      type: 'array',
      minItems: 1,
      items: { enum: ['activitypub', 'buddycloud', 'dfrn', 'diaspora', 'libertree', 'ostatus', 'pumpio', 'tent', 'xmpp', 'zot'] },
    },
    services: {
      type: 'object',
      additionalProperties: false,
      required: ['inbound', 'outbound'],
      properties: {
        inbound: { type: 'array', items: { type: 'string' } },
        outbound: { type: 'array', items: { type: 'string' } },
      },
    },
    openRegistrations: { type: 'boolean' },
    usage: {
      type: 'object',
      required: ['users'],
      properties: {
        users: {
          type: 'object',
          additionalProperties: false,
          properties: {
            total: { type: 'integer', minimum: 0 },
            activeHalfyear: { type: 'integer', minimum: 0 },
            activeMonth: { type: 'integer', minimum: 0 },
          },
        },
        localPosts: { type: 'integer', minimum: 0 },
        localComments: { type: 'integer', minimum: 0 },
      },
    },
    metadata: { type: 'object' },
  },
};

export const nodeInfoLinksSchema = {
  type: 'object',
  required: ['links'],
  properties: {
    links: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['rel', 'href'], properties: { rel: { type: 'string' }, href: absoluteUrl } },
    },
  },
};

export const actorSchema = {
  type: 'object',
  required: ['@context', 'id', 'type', 'inbox', 'outbox', 'followers', 'following', 'preferredUsername', 'publicKey'],
  properties: {
    '@context': {},
    id: absoluteUrl,
    type: { enum: ['Person', 'Service', 'Application', 'Group', 'Organization'] },
    inbox: absoluteUrl,
    outbox: absoluteUrl,
    followers: absoluteUrl,
    following: absoluteUrl,
    preferredUsername: { type: 'string', minLength: 1 },
    name: { type: 'string' },
    summary: { type: 'string' },
    endpoints: { type: 'object', properties: { sharedInbox: absoluteUrl } },
    alsoKnownAs: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    publicKey: {
      type: 'object',
      required: ['id', 'owner', 'publicKeyPem'],
      properties: { id: absoluteUrl, owner: absoluteUrl, publicKeyPem: { type: 'string', pattern: '^-----BEGIN PUBLIC KEY-----' } },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });

/** The schema's errors for `value`, empty when it is valid. */
export function schemaErrors(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}
