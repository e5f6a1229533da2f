import { nodeBinary, startNode } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('node 24', () => startNode(nodeBinary('node24')));
