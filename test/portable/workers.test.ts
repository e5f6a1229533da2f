import { startWorkers } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('workers', startWorkers);
