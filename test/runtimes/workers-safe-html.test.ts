/**
 * The sanitiser of remote HTML (src/activitypub/safe-html.ts) bundled by `wrangler deploy --dry-run` and run
 * in real workerd through Miniflare: it answers there as it does on Node.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeHtml } from '../../src/activitypub/safe-html.ts';
import { buildWorkerBundle, type WorkerBundle, WORKER_COMPATIBILITY } from '../support/worker-bundle.ts';
import { SAFE_HTML_INPUTS } from './safe-html-inputs.ts';

let bundle: WorkerBundle;
let mf: Miniflare;

beforeAll(async () => {
  bundle = await buildWorkerBundle('test/runtimes/fixtures/safe-html-worker.ts');
  mf = new Miniflare({ modules: true, scriptPath: bundle.script, modulesRoot: bundle.outdir, ...WORKER_COMPATIBILITY });
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await bundle?.remove();
});

describe('safeHtml on Workers', () => {
  it('makes remote HTML safe in workerd exactly as on Node', async () => {
    for (const html of SAFE_HTML_INPUTS) {
      const response = await mf.dispatchFetch('http://worker.test/', { method: 'POST', body: html });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(safeHtml(html));
    }
  });
});
