import { CONTAINER_BYTES } from '../../src/quota/record.ts';
import { reservedNameRules } from '../../src/storage/reserved-names.ts';

/**
 * Reads the NUL-separated paths of a checked-out tree on stdin; prints the first one the server keeps for
 * itself and exits 1. It runs the server's own rule (`reservedNameRules`, from its source), and refuses
 * ACL documents and quota records in any spelling (a push could otherwise change access control with
 * Write only), control characters and backslashes.
 */
export const NAME_CHECK_SCRIPT = `import process from 'node:process';
// Loaders that keep function names (tsx, esbuild's keepNames) wrap them in this helper of theirs.
const __name = (target) => target;
const rules = (${reservedNameRules.toString()})();
const refused = (segment, place) => {
  if (/[\\u0000-\\u001f\\u007f\\\\]/.test(segment) || rules.reservedNameProblem(segment, place) !== null) return true;
  const folded = rules.foldName(segment);
  return place === 'resource' && (folded.endsWith(rules.ACL_SUFFIX) || folded === rules.QUOTA_FILE);
};
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
for (const path of input.split('\\0')) {
  const segments = path.split('/');
  if (path !== '' && segments.some((segment, index) => refused(segment, index < segments.length - 1 ? 'container' : 'resource'))) {
    process.stdout.write(path);
    process.exit(1);
  }
}
`;

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * svc's own pre-receive hook (`core.hooksPath` points at it; a repository's hooks never run). Git runs it
 * with the pushed objects still in quarantine, so refusing here leaves the repository exactly as it was.
 * It refuses a push that would check out names the server keeps for itself (`nameCheck`: the command that
 * runs NAME_CHECK_SCRIPT, started in `privateDir` so no configuration file of a pushed tree is read) and
 * one that would grow the pod past its quota: the received objects plus the growth of the checked-out
 * tree, against SVC_QUOTA_AVAILABLE bytes. Directories count CONTAINER_BYTES each, as every writer's
 * containers do: the object folders the repository lacks yet and the tree's new folders. A first push into
 * an empty repository checks out the pushed branch.
 */
export const preReceiveHook = (nameCheck: readonly string[], privateDir: string) => `#!/bin/sh
set -eu
zero=0000000000000000000000000000000000000000
head_ref=$(git symbolic-ref -q HEAD || true)
head_commit=$(git rev-parse -q --verify HEAD || true)
checkout_ref=""
checkout_commit=""
while read -r old new ref; do
  case "$ref" in refs/heads/*) ;; *) continue ;; esac
  [ "$new" = "$zero" ] && continue
  if [ "$ref" = "$head_ref" ] || { [ -z "$head_commit" ] && [ -z "$checkout_ref" ]; }; then
    checkout_ref=$ref
    checkout_commit=$new
  fi
done

# What a commit's tree takes in the pod: its files' bytes, and each folder as a container. One listing.
tree_size() {
  git ls-tree -r -t -l --full-tree "$1" | awk '$2 == "blob" { total += $4 } $2 == "tree" { total += ${CONTAINER_BYTES} } END { print total + 0 }'
}

# A push that only deletes refs receives no objects and has no quarantine. Its objects move from the
# quarantine into the repository's objects folder: folders of the quarantine it lacks are new.
growth=0
if [ -n "\${GIT_QUARANTINE_PATH:-}" ]; then
  growth=$(find "$GIT_QUARANTINE_PATH" -type f -printf '%s\\n' | awk '{ total += $1 } END { print total + 0 }')
  objects=$(dirname "$GIT_QUARANTINE_PATH")
  folders=$(cd "$GIT_QUARANTINE_PATH" && find . -mindepth 1 -type d -printf '%P\\n' | while read -r folder; do [ -d "$objects/$folder" ] || echo; done | wc -l)
  growth=$((growth + folders * ${CONTAINER_BYTES}))
fi
# A first push: the folders \`git init\` made behind the storage's back are new to the pod too, and so
# are those of the reflog its first ref starts.
if [ -z "$(git for-each-ref --count=1)" ]; then
  git_dir=$(cd "$(git rev-parse --absolute-git-dir)" && pwd -P)
  quarantine=$(cd "\${GIT_QUARANTINE_PATH:-/}" && pwd -P)
  made=$(find "$git_dir" -path "$quarantine" -prune -o -type d -print | wc -l)
  for folder in logs logs/refs logs/refs/heads; do [ -d "$git_dir/$folder" ] || made=$((made + 1)); done
  growth=$((growth + made * ${CONTAINER_BYTES}))
fi
if [ -n "$checkout_commit" ]; then
  if ! reserved=$(git ls-tree -r -z --name-only --full-tree "$checkout_commit" | (cd ${shellQuote(privateDir)} && exec ${nameCheck.map(shellQuote).join(' ')})); then
    echo "svc: push refused: the pod server keeps this name for itself: $reserved" >&2
    echo "svc: ACL documents (*.acl), .quota.json, *.svc-meta and .svc-tmp*, in any spelling (macOS and Windows ignore case), are managed over HTTP, not through git." >&2
    exit 1
  fi
  growth=$((growth + $(tree_size "$checkout_commit")))
  if [ -n "$head_commit" ]; then growth=$((growth - $(tree_size "$head_commit"))); fi
fi
if [ -n "\${SVC_QUOTA_AVAILABLE:-}" ] && [ "$growth" -gt "$SVC_QUOTA_AVAILABLE" ]; then
  echo "svc: push refused: it needs about $growth bytes, and the pod's storage quota leaves $SVC_QUOTA_AVAILABLE bytes free. Nothing was changed." >&2
  exit 1
fi
if [ -z "$head_commit" ] && [ -n "$checkout_ref" ] && [ "$checkout_ref" != "$head_ref" ]; then
  git symbolic-ref HEAD "$checkout_ref"
fi
exit 0
`;
