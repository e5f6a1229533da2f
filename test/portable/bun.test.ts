import { startBun } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('bun', startBun);
