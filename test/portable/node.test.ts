import { startNode } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('node', startNode);
