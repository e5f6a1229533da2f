/**
 * GETs sent from a separate process, as a client on the network would send them: a GET sent from inside the
 * server's process could not measure how long that process's event loop keeps it waiting.
 */
import { spawn } from 'node:child_process';

export interface GetSample {
  /** Milliseconds since the epoch when the GET was sent. */
  start: number;
  ms: number;
}

/**
 * A separate process that GETs `url` over and over, 5 ms apart, and prints when each was sent and how long it
 * took: it waits for this process's event loop as any client would, which a GET sent from inside could not.
 */
export function startGetProber(url: string, headers: Record<string, string>): { samples: GetSample[]; stop(): Promise<void> } {
  const script = `
    let stop = false;
    process.stdin.on('end', () => (stop = true)).resume();
    (async () => {
      while (!stop) {
        const start = performance.timeOrigin + performance.now();
        try {
          const response = await fetch(${JSON.stringify(url)}, { headers: ${JSON.stringify(headers)} });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error('status ' + response.status);
          console.log(start.toFixed(1) + ' ' + (performance.timeOrigin + performance.now() - start).toFixed(1));
        } catch (error) {
          console.error('GET failed: ' + error.message);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const samples: GetSample[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const [start, ms] = line.split(' ').map(Number);
      samples.push({ start: start!, ms: ms! });
    }
  });
  return {
    samples,
    async stop() {
      child.stdin!.end();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The slowest GET that overlapped [from, to], once a GET sent after `to` has come back (so every overlapping one has). */
export async function worstGetBetween(samples: GetSample[], from: number, to: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (!samples.some((sample) => sample.start > to) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return samples.filter((sample) => sample.start <= to && sample.start + sample.ms >= from).reduce((worst, sample) => Math.max(worst, sample.ms), 0);
}
