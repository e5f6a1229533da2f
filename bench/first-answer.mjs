// Preloaded into svc by `npm run bench:startup` (node --import): at the end of its first HTTP answer, prints
// on stderr the time since the process started and the CPU time it used so far; with
// BENCH_EXIT_AFTER_FIRST_ANSWER=1 the process then exits (so valgrind counts the start and the first answer only).
import http from 'node:http';

const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (...args) {
  http.ServerResponse.prototype.end = end;
  const result = end.apply(this, args);
  const cpu = process.cpuUsage();
  process.stderr.write(`svc-first-answer ${performance.now().toFixed(1)} ${((cpu.user + cpu.system) / 1000).toFixed(1)}\n`);
  if (process.env.BENCH_EXIT_AFTER_FIRST_ANSWER === '1') this.on('finish', () => process.exit(0));
  return result;
};
