/** IRIs of the vocabularies ACL documents, groups and profiles use. */

export const ACL = 'http://www.w3.org/ns/auth/acl#';
export const FOAF = 'http://xmlns.com/foaf/0.1/';
export const VCARD = 'http://www.w3.org/2006/vcard/ns#';
export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

export const ACL_AUTHORIZATION = ACL + 'Authorization';
export const ACL_AUTHENTICATED_AGENT = ACL + 'AuthenticatedAgent';
export const FOAF_AGENT = FOAF + 'Agent';
export const VCARD_HAS_MEMBER = VCARD + 'hasMember';
