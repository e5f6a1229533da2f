/**
 * Where a server's peak RSS is made: `npm run bench` marks the end of each phase (seeding, each workload of
 * each round, the scaling run, the footprint fill) with the process's VmHWM (the kernel's peak resident set so
 * far). VmHWM never goes down, so the phase that raised it last is where the run's peak was made, whatever the
 * sampling misses in between.
 */
import { memoryOf } from './servers.ts';

export interface RssPhase {
  phase: string;
  /** VmHWM at the end of the phase, in MB. */
  peakMb: number;
  /** VmRSS at the end of the phase, in MB. */
  rssMb: number;
}

export class RssPhases {
  readonly phases: RssPhase[] = [];

  private readonly pid: number;

  constructor(pid: number) {
    this.pid = pid;
  }

  /** Records the end of a phase; returns a short text for the bench's progress line. */
  async mark(phase: string): Promise<string> {
    const memory = await memoryOf(this.pid);
    if (!memory) return '';
    this.phases.push({ phase, peakMb: memory.peakMb, rssMb: memory.currentMb });
    return `RSS ${memory.currentMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB`;
  }

  /** The phases that raised the peak, in order, each with how much (the last one made the run's peak). */
  raises(): string[] {
    const lines: string[] = [];
    let before = 0;
    for (const { phase, peakMb } of this.phases) {
      if (peakMb - before >= 0.5) lines.push(`${phase}: ${peakMb.toFixed(0)} MB (+${(peakMb - before).toFixed(0)})`);
      before = Math.max(before, peakMb);
    }
    return lines;
  }
}
