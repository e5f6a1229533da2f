// Preloaded into svc by `npm run bench:memory` (node --import): samples process.memoryUsage() every 50 ms and
// keeps the peak of each figure in the file named by SVC_BENCH_MEMORY_PROBE, so the RSS peak can be split into
// V8's heap (used and reserved), memory outside it (Buffers, ArrayBuffers) and the rest. Removing the file
// starts new peaks.
import { existsSync, renameSync, writeFileSync } from 'node:fs';

const file = process.env.SVC_BENCH_MEMORY_PROBE;
if (file) {
  let peaks = null;
  setInterval(() => {
    const usage = process.memoryUsage();
    if (!peaks || !existsSync(file)) peaks = { ...usage };
    for (const key of Object.keys(usage)) peaks[key] = Math.max(peaks[key], usage[key]);
    // Whole or not at all: the benchmark reads it at any moment.
    writeFileSync(`${file}.tmp`, JSON.stringify(peaks));
    renameSync(`${file}.tmp`, file);
  }, 50).unref();
}
