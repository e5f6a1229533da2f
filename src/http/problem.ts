/** RFC 9457 problem details: every error answer of the server has this shape. */

export const PROBLEM_TYPE_BASE = 'urn:svc:problem:';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

export interface ProblemInit {
  /** Short slug appended to the problem type URI, e.g. `invite-exhausted`. */
  type?: string;
  headers?: HeadersInit;
  /** Extra members of the problem object. */
  extra?: Record<string, unknown>;
}

/** Thrown anywhere in a handler; the app turns it into a problem+json response. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly type: string;
  readonly headers: Headers;
  readonly extra?: Record<string, unknown>;

  constructor(status: number, detail: string, init: ProblemInit = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.type = init.type ? PROBLEM_TYPE_BASE + init.type : 'about:blank';
    this.headers = new Headers(init.headers);
    this.extra = init.extra;
  }

  toResponse(): Response {
    return problemResponse(this.status, this.message, { type: this.type, headers: this.headers, extra: this.extra });
  }
}

export function problemResponse(
  status: number,
  detail: string,
  init: { type?: string; headers?: HeadersInit; extra?: Record<string, unknown> } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set('Content-Type', 'application/problem+json');
  const body = {
    type: init.type ?? 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...init.extra,
  };
  return new Response(JSON.stringify(body), { status, headers });
}
