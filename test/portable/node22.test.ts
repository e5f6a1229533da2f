import { nodeBinary, startNode } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('node 22', () => startNode(nodeBinary('node22')));
