import { SHARED_STATE_RETRY_AFTER_SECONDS, SharedStateUnavailable } from '../cluster/shared-state.ts';
import { PathError } from '../storage/paths.ts';
import { isStorageError, StorageError } from '../storage/types.ts';
import { HttpProblem, problemResponse } from './problem.ts';

/** How long clients are asked to wait when the storage (an S3 endpoint) does not answer. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Maps anything a handler threw to a problem response; unexpected errors are logged, never shown. */
export function errorToResponse(error: unknown, log: (line: string) => void): Response {
  if (error instanceof HttpProblem) return error.toResponse();
  if (error instanceof SharedStateUnavailable) {
    log(`shared state unavailable: ${error.message}`);
    return new HttpProblem(503, 'The state this server shares with its other instances cannot be reached just now; nothing was changed. Try again shortly.', {
      type: 'shared-state-unavailable',
      headers: { 'Retry-After': String(SHARED_STATE_RETRY_AFTER_SECONDS) },
    }).toResponse();
  }
  if (error instanceof PathError) return new HttpProblem(400, `Invalid path: ${error.message}.`, { type: 'invalid-path' }).toResponse();
  if (error instanceof StorageError) {
    if (isStorageError(error, 'BodyAborted') && error.cause instanceof HttpProblem) return error.cause.toResponse();
    if (isStorageError(error, 'BodyAborted') && error.cause instanceof SharedStateUnavailable) return errorToResponse(error.cause, log);
    switch (error.code) {
      case 'Conflict':
        return new HttpProblem(409, 'A resource and a container cannot share a name (for example /a/x and /a/x/), and a resource cannot hold members.', { type: 'name-conflict' }).toResponse();
      case 'NotEmpty':
        return new HttpProblem(409, 'The container is not empty.', { type: 'container-not-empty' }).toResponse();
      case 'NotFound':
        return new HttpProblem(404, 'There is no resource at this URL.', { type: 'not-found' }).toResponse();
      case 'BodyAborted':
        return new HttpProblem(400, 'The request body ended before it was complete; nothing was stored.', { type: 'body-aborted' }).toResponse();
      case 'Unavailable':
        log(`storage unavailable: ${error.message}`);
        return new HttpProblem(503, 'The storage cannot be reached just now, so the request was not completed. Try again shortly.', {
          type: 'storage-unavailable',
          headers: { 'Retry-After': String(STORAGE_RETRY_AFTER_SECONDS) },
        }).toResponse();
      case 'SpelledOtherwise':
        return new HttpProblem(400, error.message, { type: 'name-spelled-otherwise' }).toResponse();
    }
  }
  log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return problemResponse(500, 'The server could not complete the request. The error has been logged.', { type: 'urn:svc:problem:internal' });
}
