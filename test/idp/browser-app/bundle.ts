import { build } from 'esbuild';
import { join } from 'node:path';

/** app.ts bundled for a browser, logging in at `issuer` and reading `resource`. */
export async function bundleBrowserApp(issuer: string, resource: string): Promise<string> {
  const bundle = await build({
    entryPoints: [join(import.meta.dirname, 'app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    define: { ISSUER: JSON.stringify(issuer), RESOURCE: JSON.stringify(resource), 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
  });
  return bundle.outputFiles[0]!.text;
}
