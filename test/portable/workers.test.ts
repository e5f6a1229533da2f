import { describePortableActivityPub } from './activitypub-suite.ts';
import { describePortableNotifications } from './notifications-suite.ts';
import { describePortableRelay } from './relay-suite.ts';
import { startWorkers } from './servers.ts';
import { describePortable } from './suite.ts';

describePortable('workers', startWorkers);
describePortableActivityPub('workers', startWorkers);
describePortableNotifications('workers', startWorkers, false);
describePortableRelay('workers', startWorkers);
