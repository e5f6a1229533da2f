import { describePortableActivityPub } from './activitypub-suite.ts';
import { describePortableNotifications } from './notifications-suite.ts';
import { describePortableRelay } from './relay-suite.ts';
import { startNode } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('node', startNode);
describePortableActivityPub('node', (options) => startNode(process.execPath, options));
describePortableNotifications('node', (options) => startNode(process.execPath, options), true);
describePortableRelay('node', (options) => startNode(process.execPath, options));
