/**
 * https://www.w3.org/ns/solid/oidc-context.jsonld, transcribed from Appendix A ("Full JSON-LD context") of the
 * Solid-OIDC specification. Client ID documents use it.
 */
const oidc = (term: string) => ({ '@id': `oidc:${term}` });
const oidcId = (term: string) => ({ '@id': `oidc:${term}`, '@type': '@id' });

export const SOLID_OIDC_CONTEXT = {
  '@context': {
    '@version': 1.1,
    '@protected': true,
    oidc: 'http://www.w3.org/ns/solid/oidc#',
    xsd: 'http://www.w3.org/2001/XMLSchema#',
    client_id: { '@id': '@id', '@type': '@id' },
    client_uri: oidcId('client_uri'),
    logo_uri: oidcId('logo_uri'),
    policy_uri: oidcId('policy_uri'),
    tos_uri: oidcId('tos_uri'),
    redirect_uris: { '@id': 'oidc:redirect_uris', '@type': '@id', '@container': ['@id', '@set'] },
    require_auth_time: { '@id': 'oidc:require_auth_time', '@type': 'xsd:boolean' },
    default_max_age: { '@id': 'oidc:default_max_age', '@type': 'xsd:integer' },
    application_type: oidc('application_type'),
    client_name: oidc('client_name'),
    contacts: oidc('contacts'),
    grant_types: oidc('grant_types'),
    response_types: oidc('response_types'),
    scope: oidc('scope'),
    token_endpoint_auth_method: oidc('token_endpoint_auth_method'),
  },
};
