/**
 * Run by Deno and Bun (test/runtimes/deno-bun.test.ts): the sanitiser of remote HTML on this runtime. Prints
 * one JSON line: the output for each of SAFE_HTML_INPUTS, which the test compares with Node's.
 */
import { safeHtml } from '../../src/activitypub/safe-html.ts';
import { SAFE_HTML_INPUTS } from './safe-html-inputs.ts';

console.log(JSON.stringify(SAFE_HTML_INPUTS.map(safeHtml)));
