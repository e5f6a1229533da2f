/** One measurement: a workload against a server for a fixed time with autocannon, on loopback. */
import autocannon from 'autocannon';
import type { Target, Workload } from './workloads.ts';

export interface Measurement {
  requestsPerSecond: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  /** Non-2xx answers, connection errors and timeouts: a run with any is failed, never counted as speed. */
  failures: number;
  /** The non-2xx statuses seen, with counts, e.g. "401×3". */
  unexpectedStatuses: string[];
}

const TIMEOUT_SECONDS = 10;

interface ParserClient {
  parser: Record<number, (...args: unknown[]) => unknown> & { constructor: { kOnHeadersComplete: number } };
}

/**
 * autocannon's response parser waits for the body a HEAD answer announces but never sends; telling the parser
 * to skip bodies (as Node's own client does for HEAD) makes HEAD measurable.
 */
function expectNoBodies(client: unknown): void {
  const { parser } = client as ParserClient;
  // autocannon installs its handler after this hook runs, so wrap whatever it installs.
  let onHeadersComplete: (...args: unknown[]) => unknown = () => undefined;
  Object.defineProperty(parser, parser.constructor.kOnHeadersComplete, {
    get: () => (...args: unknown[]) => {
      onHeadersComplete(...args);
      return true;
    },
    set: (handler: (...args: unknown[]) => unknown) => (onHeadersComplete = handler),
  });
}

export async function measure(base: string, workload: Workload, target: Target | null, options: { duration: number; connections: number }): Promise<Measurement> {
  const url = target ? workload.url(target) : `${base}/`;
  const result = await autocannon({
    url,
    method: workload.method,
    headers: target ? workload.headers(target) : {},
    body: workload.body,
    connections: options.connections,
    duration: options.duration,
    timeout: TIMEOUT_SECONDS,
    ...(workload.method === 'HEAD' && { setupClient: expectNoBodies }),
  });
  const statuses = Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, { count }]) => `${status}×${count}`);
  const answered = result.requests.total;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // A run in which nothing was answered at all is a failure too, not a speed of zero.
    failures: result.non2xx + result.errors + result.timeouts + (answered === 0 ? 1 : 0),
    unexpectedStatuses: answered === 0 ? [...statuses, `no answer within ${TIMEOUT_SECONDS} s`] : statuses,
  };
}
