import { ASYMMETRIC_ALGORITHMS } from '../auth/solid-oidc/algorithms.ts';
import { SIGNING_ALGORITHM } from './keys.ts';
import { AUTH_PATH, CLIENT_REGISTRATION_PATH, JWKS_PATH, TOKEN_PATH } from './paths.ts';
import { endpointOf } from './issuer.ts';


/** The OpenID Provider metadata (OIDC Discovery 1.0, RFC 8414) with what Solid-OIDC clients look for. */
export function discoveryDocument(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: endpointOf(issuer, AUTH_PATH),
    token_endpoint: endpointOf(issuer, TOKEN_PATH),
    jwks_uri: endpointOf(issuer, JWKS_PATH),
    registration_endpoint: endpointOf(issuer, CLIENT_REGISTRATION_PATH),
    scopes_supported: ['openid', 'webid', 'offline_access'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    dpop_signing_alg_values_supported: [...ASYMMETRIC_ALGORITHMS],
    id_token_signing_alg_values_supported: [SIGNING_ALGORITHM],
    subject_types_supported: ['public'],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'azp', 'webid', 'nonce'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    solid_oidc_supported: 'https://solidproject.org/TR/solid-oidc',
  };
}
