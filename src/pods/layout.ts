/**
 * The documents of a new pod, all with relative IRIs so a pod keeps working under any host name.
 * Paths are relative to the pod root; `owner` is the WebID relative to each document.
 */
import { escapeHtml } from '../http/escape-html.ts';

export interface PodFile {
  path: string;
  contentType: string;
  body: string;
}

const TURTLE = 'text/turtle';
const JSON_LD = 'application/ld+json';

const PROFILE_CONTEXT = {
  foaf: 'http://xmlns.com/foaf/0.1/',
  schema: 'http://schema.org/',
  solid: 'http://www.w3.org/ns/solid/terms#',
  pim: 'http://www.w3.org/ns/pim/space#',
  ldp: 'http://www.w3.org/ns/ldp#',
};

/** Properties features add to `<#me>` (such as `solid:oidcIssuer`), as JSON-LD with full IRIs as keys. */
export type ProfileExtras = Record<string, unknown>;

/** The WebID profile graph: `<#me>` and the document describing it, relative to the pod root. */
export function profileJsonLd(name: string, extras: ProfileExtras = {}): Record<string, unknown> {
  return {
    '@context': PROFILE_CONTEXT,
    '@graph': [
      { '@id': '', '@type': 'foaf:PersonalProfileDocument', 'foaf:maker': { '@id': '#me' }, 'foaf:primaryTopic': { '@id': '#me' } },
      {
        '@id': '#me',
        '@type': ['foaf:Person', 'schema:Person'],
        'foaf:name': name,
        'solid:storage': { '@id': './' },
        'pim:storage': { '@id': './' },
        'ldp:inbox': { '@id': './inbox/' },
        'solid:publicTypeIndex': { '@id': './settings/publicTypeIndex' },
        'solid:privateTypeIndex': { '@id': './settings/privateTypeIndex' },
        'pim:preferencesFile': { '@id': './settings/prefs' },
        ...extras,
      },
    ],
  };
}

/** The profile page: readable HTML around a JSON-LD island that holds the profile graph. */
export function profileHtml(name: string, extras: ProfileExtras = {}): string {
  const island = JSON.stringify(profileJsonLd(name, extras), null, 2).replace(/</g, '\\u003c');
  const title = escapeHtml(name);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<script type="application/ld+json">
${island}
</script>
</head>
<body>
<h1>${title}</h1>
<p>This is the WebID profile of <a href="#me">${title}</a>. Storage: <a href="./">this pod</a>; inbox: <a href="./inbox/">inbox/</a>.</p>
</body>
</html>
`;
}

const PREFIXES = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
@prefix foaf: <http://xmlns.com/foaf/0.1/>.
`;

/** Owner gets every mode on the container and what it holds; `publicModes` adds a public authorization. */
function containerAcl(owner: string, publicModes: string | null, publicInherits: boolean): string {
  let text = `${PREFIXES}
<#owner> a acl:Authorization;
  acl:agent <${owner}>;
  acl:accessTo <./>;
  acl:default <./>;
  acl:mode acl:Read, acl:Write, acl:Control.
`;
  if (publicModes) {
    text += `
<#public> a acl:Authorization;
  acl:agentClass foaf:Agent;
  acl:accessTo <./>;${publicInherits ? '\n  acl:default <./>;' : ''}
  acl:mode ${publicModes}.
`;
  }
  return text;
}

/** A resource's own ACL: the owner keeps control, the public may read it. */
function publicReadAcl(owner: string, resource: string): string {
  return `${PREFIXES}
<#owner> a acl:Authorization;
  acl:agent <${owner}>;
  acl:accessTo <${resource}>;
  acl:mode acl:Read, acl:Write, acl:Control.

<#public> a acl:Authorization;
  acl:agentClass foaf:Agent;
  acl:accessTo <${resource}>;
  acl:mode acl:Read.
`;
}

function jsonLd(document: Record<string, unknown>): string {
  return JSON.stringify({ '@context': PROFILE_CONTEXT, ...document });
}

/** Every file of a new pod, in the order they are written (containers come into being with their ACLs). */
export function podFiles(name: string, extras: ProfileExtras = {}): PodFile[] {
  return [
    // The pod root: the owner may do everything; the public may read the root (the profile) only.
    { path: '.acl', contentType: TURTLE, body: containerAcl('./#me', 'acl:Read', false) },
    { path: 'index.html', contentType: 'text/html', body: profileHtml(name, extras) },
    { path: 'index.html.acl', contentType: TURTLE, body: publicReadAcl('./#me', './index.html') },
    { path: 'inbox/.acl', contentType: TURTLE, body: containerAcl('../#me', 'acl:Append', false) },
    { path: 'public/.acl', contentType: TURTLE, body: containerAcl('../#me', 'acl:Read', true) },
    { path: 'private/.acl', contentType: TURTLE, body: containerAcl('../#me', null, false) },
    { path: 'settings/.acl', contentType: TURTLE, body: containerAcl('../#me', null, false) },
    {
      path: 'settings/prefs',
      contentType: JSON_LD,
      body: jsonLd({
        '@graph': [
          { '@id': '', '@type': 'pim:ConfigurationFile' },
          { '@id': '../#me', 'solid:publicTypeIndex': { '@id': './publicTypeIndex' }, 'solid:privateTypeIndex': { '@id': './privateTypeIndex' } },
        ],
      }),
    },
    { path: 'settings/publicTypeIndex', contentType: JSON_LD, body: jsonLd({ '@id': '', '@type': ['solid:TypeIndex', 'solid:ListedDocument'] }) },
    { path: 'settings/publicTypeIndex.acl', contentType: TURTLE, body: publicReadAcl('../#me', './publicTypeIndex') },
    { path: 'settings/privateTypeIndex', contentType: JSON_LD, body: jsonLd({ '@id': '', '@type': ['solid:TypeIndex', 'solid:UnlistedDocument'] }) },
  ];
}
