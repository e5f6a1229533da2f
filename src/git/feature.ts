/**
 * `--git`: containers that hold a git repository are cloned and pushed over git's smart HTTP protocol at
 * their own URL. The core decides who may do what (WAC Read to fetch, Write to push, `--read-only`) and
 * where (a container of a pod, never `.git/` itself); the runtime's git backend runs `git http-backend`.
 */
import type { Context } from 'hono';
import type { FeatureCode, FeatureContext } from '../features/feature.ts';
import { HttpProblem } from '../http/problem.ts';
import { isHiddenFromListing, isServerPrivatePath } from '../ldp/auxiliary.ts';
import type { Change } from '../ldp/context.ts';
import { podHostsOf, publicUrlOf } from '../pods/subdomains.ts';
import { nameOf, urlPathFromStoragePath } from '../storage/paths.ts';
import { mediaTypeForName } from '../storage/media-types.ts';
import type { GitBackend, GitServiceAnswer } from './backend.ts';
import { withGitCredentials } from './credentials.ts';
import { gitTargetOf, type GitTarget } from './target.ts';

/** What `git http-backend` inflates; git itself sends only gzip. */
const GIT_ENCODINGS = new Set(['gzip', 'x-gzip', 'identity']);

const notARepository = () => new HttpProblem(404, 'There is no git repository at this URL.', { type: 'not-found' });

/** Git shows a `text/plain` error body to its user (as `remote: ...`); other clients get the problem document. */
function forGitClient(request: Request, problem: HttpProblem): Response {
  if (!request.headers.get('user-agent')?.startsWith('git/')) return problem.toResponse();
  const headers = new Headers(problem.headers);
  headers.set('Content-Type', 'text/plain; charset=utf-8');
  return new Response(problem.message + '\n', { status: problem.status, headers });
}

export const gitCode: FeatureCode = {
  create(context) {
    // A platform without it was refused at start (descriptor.ts).
    const git = context.platform.git!;
    const serve = gitRequestHandler(context, git);
    const hosts = podHostsOf(context.config);
    return {
      routes(app) {
        app.on(['GET', 'HEAD', 'POST'], '*', async (c: Context, next) => {
          const url = new URL(c.req.url);
          // On a pod's host (subdomain mode), repositories are paths in that pod.
          if (hosts) url.pathname = hosts.localPathOf(url);
          const target = gitTargetOf(c.req.method, url);
          if (!target) return next();
          try {
            return await serve(c.req.raw, target);
          } catch (error) {
            if (error instanceof HttpProblem) return forGitClient(c.req.raw, error);
            throw error;
          }
        });
      },
    };
  },
};

function gitRequestHandler(context: FeatureContext, git: GitBackend) {
  const { config, access, platform, quotas } = context;
  const storage = platform.storage;
  const podOf = (repository: string) => quotas.scope.podOf(repository);

  /** A push may create a repository in a missing or empty container only: anything else there stays untouched. */
  const refuseIfOccupied = async (repository: string): Promise<void> => {
    if (!(await storage.head(repository))) return;
    for await (const member of storage.list(repository)) {
      if (!isHiddenFromListing(member.path)) {
        throw new HttpProblem(409, 'This container holds resources but no git repository: push to a new or empty container to create one.', { type: 'not-a-repository' });
      }
    }
  };

  /** Makes the repository for a push; what it made (containers included) is what a refused push removes. */
  const createRepository = async (repository: string): Promise<Change[]> => {
    const made = (await storage.head(repository)) ? null : await storage.createContainer(repository);
    await git.createRepository(repository);
    return made ? [...made.createdContainers, repository].map((path) => ({ path, kind: 'create' as const })) : [];
  };

  /** After a refused push-to-create: the repository goes, and so do the containers made for it, deepest first. */
  const undoCreation = async (repository: string, created: readonly Change[]): Promise<void> => {
    await git.removeRepository(repository);
    for (const { path } of [...created].sort((a, b) => b.path.length - a.path.length)) await storage.delete(path);
    storage.forgetCached?.(repository);
    context.log(`git: the push that would have created a repository in ${repository} was refused; nothing was kept`);
  };

  /**
   * After a push: the files git wrote are seen at once and announced, and the pod's quota counts what is
   * now on disk (objects of any branch, the checked-out files).
   */
  const afterPush = async (repository: string, answer: GitServiceAnswer, created: readonly Change[] | null): Promise<void> => {
    const changed = await answer.finished;
    if (created && (await git.isEmpty(repository))) return undoCreation(repository, created);
    if (created) context.log(`git: created a repository in ${repository}`);
    storage.forgetCached?.(repository);
    // A file git wrote has the type its extension says, bytes without one: not the JSON-LD the fs driver
    // reads from a name without an extension (docs/decisions.md, "One directory entry per resource").
    for (const change of changed) if (change.kind !== 'delete') await storage.keepType?.(repository + change.path, mediaTypeForName(nameOf(change.path)));
    const published = [...(created ?? []), ...changed.map((change) => ({ path: repository + change.path, kind: change.kind }))];
    if (published.length > 0) context.publish(published);
    const podRoot = podOf(repository);
    if (podRoot) await quotas.recount(podRoot);
  };

  const quotaAvailable = async (repository: string): Promise<number | undefined> => {
    const podRoot = podOf(repository);
    return (podRoot ? await quotas.free(podRoot) : null) ?? undefined;
  };

  return async (request: Request, target: GitTarget): Promise<Response> => {
    const { repository, service, advertisement } = target;
    if (podOf(repository) === null || isServerPrivatePath(repository)) throw notARepository();
    const push = service === 'git-receive-pack';
    if (push && config.readOnly) {
      throw new HttpProblem(403, 'This server is read-only (--read-only): pushes are refused; clone and fetch still work.', { type: 'read-only' });
    }
    const caller = await context.authenticate(withGitCredentials(request, target, publicUrlOf(config, urlPathFromStoragePath(repository), new URL(request.url))));
    try {
      await access.require(caller, [{ path: repository, anyOf: [push ? 'write' : 'read'] }]);
    } catch (error) {
      // Git answers a Basic challenge by asking its credential helper (or the user) and sending them.
      if (error instanceof HttpProblem && error.status === 401) error.headers.set('WWW-Authenticate', `Basic realm="${new URL(request.url).origin}", charset="UTF-8"`);
      throw error;
    }
    // A push to where there is no repository yet creates one, once its objects arrive (the POST after the
    // advertisement), and removes it again if the push is refused: nothing is left of a refused first push.
    const exists = await git.isRepository(repository);
    if (!exists) {
      if (!push) throw notARepository();
      await refuseIfOccupied(repository);
    }
    const created = !exists && !advertisement ? await createRepository(repository) : null;
    const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
    if (encoding && !GIT_ENCODINGS.has(encoding)) {
      throw new HttpProblem(415, `Git request bodies are sent plain or with Content-Encoding: gzip, not ${encoding}.`, { type: 'unsupported-media-type' });
    }
    const answer = await git.serve({
      repository,
      service,
      advertisement,
      contentType: request.headers.get('content-type'),
      contentEncoding: request.headers.get('content-encoding'),
      body: request.body,
      remoteUser: caller.webId,
      ...(push && !advertisement && { quotaAvailable: await quotaAvailable(repository) }),
      ...(!exists && advertisement && { notYetCreated: true }),
    });
    const logFailure = (error: unknown) => context.log(`git: ${repository}: ${(error as Error).message}`);
    if (answer.response.status >= 400 && answer.response.status < 500) {
      answer.finished.catch(logFailure);
      if (created) await undoCreation(repository, created);
      // Git's own refusals (a wrong Content-Type) get the server's error shape, with git's words.
      throw new HttpProblem(answer.response.status, (await answer.response.text()).trim() || 'git refused the request.', { type: 'git-refused' });
    }
    if (!push || advertisement) {
      answer.finished.catch(logFailure);
      return answer.response;
    }
    const done = afterPush(repository, answer, created).catch(logFailure);
    // The answer ends only once the pushed files are visible, so the client's next request sees them.
    const body = answer.response.body?.pipeThrough(new TransformStream({ flush: () => done }));
    return new Response(body ?? null, { status: answer.response.status, headers: answer.response.headers });
  };
}
