/**
 * svc's own pre-receive hook (`core.hooksPath` points at it; a repository's hooks never run). Git runs it
 * with the pushed objects still in quarantine, so refusing here leaves the repository exactly as it was.
 * It refuses a push that would check out names the server keeps for itself (ACLs, quota records, driver
 * files) and one that would grow the pod past its quota: the received objects plus the growth of the
 * checked-out tree, against SVC_QUOTA_AVAILABLE bytes. A first push into an empty repository checks out
 * the pushed branch.
 */
export const PRE_RECEIVE_HOOK = `#!/bin/sh
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

tree_bytes() {
  git ls-tree -r -l --full-tree "$1" | awk '$2 == "blob" { total += $4 } END { print total + 0 }'
}

# A push that only deletes refs receives no objects and has no quarantine.
growth=0
if [ -n "\${GIT_QUARANTINE_PATH:-}" ]; then
  growth=$(find "$GIT_QUARANTINE_PATH" -type f -printf '%s\\n' | awk '{ total += $1 } END { print total + 0 }')
fi
if [ -n "$checkout_commit" ]; then
  reserved=$(git ls-tree -r -z --name-only --full-tree "$checkout_commit" \\
    | grep -z -m 1 -E '(^|/)\\.svc-tmp[^/]*(/|$)|\\.svc-meta(/|$)|(^|/)\\.quota\\.json$|\\.acl$|[[:cntrl:]]|\\\\' | tr '\\0' '\\n' || true)
  if [ -n "$reserved" ]; then
    echo "svc: push refused: the pod server keeps this name for itself: $reserved" >&2
    echo "svc: ACL documents (*.acl), .quota.json, *.svc-meta and .svc-tmp* are managed over HTTP, not through git." >&2
    exit 1
  fi
  growth=$((growth + $(tree_bytes "$checkout_commit")))
  if [ -n "$head_commit" ]; then growth=$((growth - $(tree_bytes "$head_commit"))); fi
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
