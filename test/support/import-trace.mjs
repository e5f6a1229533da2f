// Loaded with `node --import`: prints `svc-import <specifier> <url>` on stderr for every module a process
// imports, so a test can tell which packages and which of svc's own files a start loads.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!specifier.startsWith('node:') && !specifier.startsWith('data:')) process.stderr.write('svc-import ' + specifier + ' ' + resolved.url + '\\n');
  return resolved;
}`)}`,
);
