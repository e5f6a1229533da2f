/** The benchmark's markdown report: one table per concern, ratios of svc to each peer and to the ceiling. */

export interface ServerReport {
  name: string;
  startupMs: number;
  peakRssMb: number | null;
  rssAfterMb: number | null;
  /** svc's builds: the phases that raised the peak RSS (bench/rss-phases.ts), the last one made it. */
  peakRaisedBy?: string[];
}

export interface WorkloadRow {
  workload: string;
  server: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
  statuses: string[];
  /** Server CPU time per answered request (median of the rounds), in microseconds. */
  cpuPerRequestUs: number | null;
}

interface ReportInput {
  servers: ServerReport[];
  rows: WorkloadRow[];
  scaling: { server: string; members: number; cold: number; warm: number }[];
  /** Bytes on disk of the 1,000 extension-less members' container, per server. */
  footprint: { server: string; bytes: number | null }[];
  settings: { duration: number; connections: number; rounds: number };
}

const OURS = 'svc';
const CEILING = 'hono-ceiling';
const mb = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(0)} MB`);

function speed(row: WorkloadRow | undefined): string {
  if (!row) return '—';
  if (row.failures > 0) return `FAILED (${row.failures} errors: ${row.statuses.join(', ') || 'connection errors'})`;
  return `${row.requestsPerSecond.toFixed(0)} req/s, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms`;
}

function ratio(ours: WorkloadRow | undefined, other: WorkloadRow | undefined): string {
  if (!ours || !other) return '—';
  if (ours.failures > 0) return 'svc failed';
  if (other.failures > 0 || other.requestsPerSecond === 0) return `${other.server} failed`;
  return `${(ours.requestsPerSecond / other.requestsPerSecond).toFixed(1)}×`;
}

export function markdownReport({ servers, rows, scaling, footprint, settings }: ReportInput): string {
  const peers = servers.map((server) => server.name).filter((name) => name !== OURS && name !== CEILING);
  const workloads = [...new Set(rows.filter((row) => row.server !== CEILING).map((row) => row.workload))];
  const find = (workload: string, server: string) => rows.find((row) => row.workload === workload && row.server === server);
  const ceiling = rows.find((row) => row.server === CEILING);
  const lines: string[] = [];
  lines.push(`${settings.connections} connections, ${settings.duration} s per run, ${settings.rounds} interleaved rounds (req/s is the mean of the rounds, p50 the median, p99 the worst).`, '');
  const header = ['workload', OURS, ...peers, ...peers.map((peer) => `svc/${peer}`), 'svc/ceiling'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  for (const workload of workloads) {
    const ours = find(workload, OURS);
    const cells = [workload, speed(ours), ...peers.map((peer) => speed(find(workload, peer))), ...peers.map((peer) => ratio(ours, find(workload, peer)))];
    cells.push(ours && ceiling && !ours.failures ? `${((ours.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(0)}%` : '—');
    lines.push(`| ${cells.join(' | ')} |`);
  }
  if (ceiling) lines.push('', `Ceiling (bare Hono on Node, same 1 KB body, no storage or access control): ${speed(ceiling)}.`);
  const serversWithCpu = servers.map((server) => server.name).filter((name) => name !== CEILING && rows.some((row) => row.server === name && row.cpuPerRequestUs !== null));
  if (serversWithCpu.length > 0) {
    lines.push('', 'Server CPU per answered request (user + system, median of the rounds; ×N = N connections):', '');
    lines.push(`| workload | ${serversWithCpu.join(' | ')} |`, `|---|${serversWithCpu.map(() => '---:').join('|')}|`);
    for (const workload of workloads) {
      const cells = serversWithCpu.map((name) => {
        const row = find(workload, name);
        return row?.cpuPerRequestUs == null ? '—' : `${row.cpuPerRequestUs.toFixed(0)} µs${row.failures ? ' (failed)' : ''}`;
      });
      lines.push(`| ${workload} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('', '| server | spawn to first 200 | peak RSS | RSS after the run |', '|---|---|---|---|');
  for (const server of servers) lines.push(`| ${server.name} | ${server.startupMs.toFixed(0)} ms | ${mb(server.peakRssMb)} | ${mb(server.rssAfterMb)} |`);
  for (const server of servers) if (server.peakRaisedBy?.length) lines.push('', `${server.name}'s peak RSS raised by: ${server.peakRaisedBy.join('; ')}.`);
  if (footprint.length > 0) {
    const mbOf = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1e6).toFixed(1)} MB`);
    lines.push('', `Disk for a container of 1,000 small extension-less JSON-LD members (allocated blocks): ${footprint.map(({ server, bytes }) => `${server} ${mbOf(bytes)}`).join(', ')}.`);
  }
  for (const server of new Set(scaling.map((row) => row.server))) {
    const rows = scaling.filter((row) => row.server === server);
    if (rows.length !== 2) continue;
    const [small, large] = rows as [(typeof scaling)[0], (typeof scaling)[0]];
    lines.push(
      '',
      `Container listing (${server}, one request at a time, medians of 30): after a write through svc into the container ${small.members} members ${small.cold.toFixed(1)} ms, ${large.members} members ${large.cold.toFixed(1)} ms (${(large.cold / small.cold).toFixed(1)}×); unchanged (cached) ${small.warm.toFixed(1)} ms and ${large.warm.toFixed(1)} ms (${(large.warm / small.warm).toFixed(1)}×).`,
    );
  }
  // Since the fs driver puts its own writes into its cached listing, that is no directory scan: bench:scan measures one.
  if (scaling.length > 0) lines.push('', 'A directory changed outside svc is scanned again: `npm run bench:scan` measures that scan (and the bare readdir+lstat loop under it).');
  return lines.join('\n');
}
