// Loaded with `node --import`: prints `svc-import <specifier>` on stderr for every package a process imports,
// so a test can tell which modules a start loads.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (!/^(node:|\\.|\\/|file:|data:)/.test(specifier)) process.stderr.write('svc-import ' + specifier + '\\n');
  return next(specifier, context);
}`)}`,
);
