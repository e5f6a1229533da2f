/** `npm run bench:scale-out [-- --duration <s> --connections <n>]`: the scale-out comparison alone (see bench/scale-out.ts). */
import { parseArgs } from 'node:util';
import { positiveCount } from './args.ts';
import { runScaleOut, scaleOutReport } from './scale-out.ts';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } } });
const rows = await runScaleOut({
  duration: positiveCount('duration', values.duration),
  connections: positiveCount('connections', values.connections),
  log: (line) => console.error(`[bench] ${line}`),
});
console.log(scaleOutReport(rows));
