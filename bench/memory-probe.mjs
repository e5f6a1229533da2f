// Preloaded into svc by `npm run bench:memory` (node --import): samples process.memoryUsage() every 50 ms and
// keeps the peak of each figure in the file named by SVC_BENCH_MEMORY_PROBE, so the RSS peak can be split into
// V8's heap (used and reserved), memory outside it (Buffers, ArrayBuffers) and the rest. At the sample with the
// highest RSS it also keeps what made it up: the kernel's split (anonymous, file-backed: Node's own binary) and
// each V8 space's resident size and use. Removing the file starts new peaks.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { getHeapCodeStatistics, getHeapSpaceStatistics } from 'node:v8';

const file = process.env.SVC_BENCH_MEMORY_PROBE;

/** What the RSS is made of at this moment, in bytes. */
function split(usage) {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  const spaces = {};
  for (const space of getHeapSpaceStatistics()) spaces[space.space_name] = { resident: space.physical_space_size, used: space.space_used_size };
  const code = getHeapCodeStatistics();
  return {
    rss: usage.rss,
    anonymous: kb('RssAnon'),
    fileBacked: kb('RssFile'),
    heapTotal: usage.heapTotal,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    spaces,
    bytecodeAndMetadata: code.bytecode_and_metadata_size,
    compiledCode: code.code_and_metadata_size,
  };
}

if (file) {
  let peaks = null;
  setInterval(() => {
    const usage = process.memoryUsage();
    if (!peaks || !existsSync(file)) peaks = { ...usage, atPeakRss: split(usage) };
    else if (usage.rss > peaks.rss) peaks.atPeakRss = split(usage);
    for (const key of Object.keys(usage)) peaks[key] = Math.max(peaks[key], usage[key]);
    // Whole or not at all: the benchmark reads it at any moment.
    writeFileSync(`${file}.tmp`, JSON.stringify(peaks));
    renameSync(`${file}.tmp`, file);
  }, 50).unref();
}
