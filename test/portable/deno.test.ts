import { startDeno } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('deno', startDeno);
