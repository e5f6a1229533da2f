/**
 * JSON-LD contexts the server knows without fetching. Request-time fetches of remote contexts are never
 * made: they would be slow, leak requests to third parties and fail offline.
 */
export const BUNDLED_CONTEXTS: Record<string, Record<string, unknown>> = {};
