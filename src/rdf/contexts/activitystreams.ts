/**
 * The ActivityStreams 2.0 context served at https://www.w3.org/ns/activitystreams, transcribed from a public
 * copy of the deployed document (term for term; only the layout is condensed).
 */
const id = (term: string) => ({ '@id': `as:${term}`, '@type': '@id' });
const typed = (term: string, type: string) => ({ '@id': `as:${term}`, '@type': type });
const langMap = (term: string) => ({ '@id': `as:${term}`, '@container': '@language' });

const CLASSES = [
  'Accept', 'Activity', 'IntransitiveActivity', 'Add', 'Announce', 'Application', 'Arrive', 'Article', 'Audio', 'Block',
  'Collection', 'CollectionPage', 'Relationship', 'Create', 'Delete', 'Dislike', 'Document', 'Event', 'Follow', 'Flag',
  'Group', 'Ignore', 'Image', 'Invite', 'Join', 'Leave', 'Like', 'Link', 'Mention', 'Note', 'Object', 'Offer',
  'OrderedCollection', 'OrderedCollectionPage', 'Organization', 'Page', 'Person', 'Place', 'Profile', 'Question',
  'Reject', 'Remove', 'Service', 'TentativeAccept', 'TentativeReject', 'Tombstone', 'Undo', 'Update', 'Video', 'View',
  'Listen', 'Read', 'Move', 'Travel', 'IsFollowing', 'IsFollowedBy', 'IsContact', 'IsMember',
];

const ID_PROPERTIES = [
  'subject', 'relationship', 'actor', 'attributedTo', 'attachment', 'bcc', 'bto', 'cc', 'context', 'current', 'first',
  'generator', 'icon', 'image', 'inReplyTo', 'items', 'instrument', 'last', 'location', 'next', 'object', 'oneOf',
  'anyOf', 'origin', 'prev', 'preview', 'replies', 'result', 'audience', 'partOf', 'tag', 'target', 'to', 'url', 'href',
  'describes', 'formerType', 'outbox', 'following', 'followers', 'streams', 'endpoints', 'uploadMedia', 'proxyUrl',
  'liked', 'oauthAuthorizationEndpoint', 'oauthTokenEndpoint', 'provideClientKey', 'signClientKey', 'sharedInbox',
  'Public', 'likes', 'shares', 'alsoKnownAs',
];

const XSD_PROPERTIES: Record<string, string> = {
  closed: 'xsd:dateTime', accuracy: 'xsd:float', altitude: 'xsd:float', duration: 'xsd:duration',
  endTime: 'xsd:dateTime', height: 'xsd:nonNegativeInteger', latitude: 'xsd:float', longitude: 'xsd:float',
  published: 'xsd:dateTime', radius: 'xsd:float', startIndex: 'xsd:nonNegativeInteger', startTime: 'xsd:dateTime',
  totalItems: 'xsd:nonNegativeInteger', updated: 'xsd:dateTime', width: 'xsd:nonNegativeInteger', deleted: 'xsd:dateTime',
};

const PLAIN_PROPERTIES = ['content', 'name', 'hreflang', 'mediaType', 'rel', 'summary', 'units', 'preferredUsername', 'source'];

export const ACTIVITY_STREAMS_CONTEXT = {
  '@context': {
    '@vocab': '_:',
    xsd: 'http://www.w3.org/2001/XMLSchema#',
    as: 'https://www.w3.org/ns/activitystreams#',
    ldp: 'http://www.w3.org/ns/ldp#',
    vcard: 'http://www.w3.org/2006/vcard/ns#',
    id: '@id',
    type: '@type',
    ...Object.fromEntries(CLASSES.map((term) => [term, `as:${term}`])),
    ...Object.fromEntries(ID_PROPERTIES.map((term) => [term, id(term)])),
    ...Object.fromEntries(Object.entries(XSD_PROPERTIES).map(([term, type]) => [term, typed(term, type)])),
    ...Object.fromEntries(PLAIN_PROPERTIES.map((term) => [term, `as:${term}`])),
    orderedItems: { '@id': 'as:items', '@type': '@id', '@container': '@list' },
    contentMap: langMap('content'),
    nameMap: langMap('name'),
    summaryMap: langMap('summary'),
    inbox: { '@id': 'ldp:inbox', '@type': '@id' },
  },
};
