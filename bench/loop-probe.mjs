// Loaded into a server process (`node --import ./bench/loop-probe.mjs ...`): on SIGUSR2 it prints, since the
// previous SIGUSR2, the longest gap between ticks of a 1 ms timer (how long the event loop was held, in wall
// time, which the machine's load stretches) and the most CPU time the process used between two ticks (the
// same hold as work done, which the load does not stretch).
let last = performance.now();
let lastCpu = process.cpuUsage();
let longest = 0;
let mostCpu = 0;
setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  longest = Math.max(longest, now - last);
  mostCpu = Math.max(mostCpu, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
  last = now;
  lastCpu = cpu;
}, 1).unref();
process.on('SIGUSR2', () => {
  process.stderr.write(`loop-probe: ${longest.toFixed(0)} ms wall, ${mostCpu.toFixed(0)} ms CPU\n`);
  longest = 0;
  mostCpu = 0;
});
