/** One measurement: a workload against a server for a fixed time with autocannon, on loopback. */
import { readFile } from 'node:fs/promises';
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
  /** CPU time (user + system) the server process spent per answered request, in microseconds; null where /proc is missing. */
  cpuPerRequestUs: number | null;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of a process so far, in microseconds (fields 14 and 15 of /proc/<pid>/stat). */
async function cpuTimeUs(pid: number): Promise<number | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
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

export async function measure(
  base: string,
  workload: Workload,
  target: Target | null,
  options: { duration: number; connections: number; pid?: number },
): Promise<Measurement> {
  const url = target ? workload.url(target) : `${base}/`;
  const headers = target ? workload.headers(target) : {};
  const perRequest = target && workload.perRequest ? () => workload.perRequest!(target) : null;
  const cpuBefore = options.pid === undefined ? null : await cpuTimeUs(options.pid);
  const result = await autocannon({
    url,
    method: workload.method,
    headers,
    body: workload.body,
    connections: options.connections,
    duration: options.duration,
    timeout: TIMEOUT_SECONDS,
    ...(workload.method === 'HEAD' && { setupClient: expectNoBodies }),
    ...(perRequest && { requests: [{ method: workload.method, setupRequest: (request) => ({ ...request, headers: { ...headers, ...perRequest() } }) }] }),
  });
  const cpuAfter = options.pid === undefined ? null : await cpuTimeUs(options.pid);
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
    cpuPerRequestUs: cpuBefore !== null && cpuAfter !== null && answered > 0 ? (cpuAfter - cpuBefore) / answered : null,
  };
}
