import { startTestS3 } from '../support/s3.ts';
import { describeScaleOut } from './scale-out-suite.ts';

// s3rver has no conditional writes: create-only and compare-and-swap hold across instances by the shared locks.
describeScaleOut('one S3 bucket', async () => {
  const s3 = await startTestS3();
  const reader = await s3.driver();
  return {
    args: s3.args(),
    env: s3.env,
    // Each write is about five S3 requests to one test server process, which on a busy machine does not answer
    // 5,000 of them within the client's 10 s: a 503 then, and a write that landed after its timeout is uncounted.
    quotaWrites: 300,
    read: async (path) => {
      const stored = await reader.get(path);
      return stored ? new Response(stored.body).text() : null;
    },
    close: () => s3.stop(),
  };
});
