const AS_PROFILE = 'https://www.w3.org/ns/activitystreams';

/**
 * Whether a request asks for the ActivityStreams form (`application/activity+json`, or `application/ld+json`
 * with the ActivityStreams profile) with a q-value above zero. Plain JSON-LD and everything else get the
 * Solid profile.
 */
export function wantsActivityStreams(accept: string | null): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim());
    const params = new Map(parameters.map((parameter) => {
      const equals = parameter.indexOf('=');
      return [parameter.slice(0, equals).trim().toLowerCase(), parameter.slice(equals + 1).trim().replace(/^"|"$/g, '')] as const;
    }));
    if (params.has('q') && !(Number(params.get('q')) > 0)) return false;
    const type = range?.toLowerCase();
    if (type === 'application/activity+json') return true;
    return type === 'application/ld+json' && (params.get('profile') ?? '').split(/\s+/).includes(AS_PROFILE);
  });
}
