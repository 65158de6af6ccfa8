/**
 * OAuth metadata of optout as resource server (RFC 9728) and as the authorization server of its
 * agent credentials (RFC 8414, with the auth.md `agent_auth` block). Both name `BASE_URL`, with
 * no trailing slash, so `issuer` and `authorization_servers[0]` are the same string
 * (RFC 8414 §3.3). Only endpoints that exist are named: there is no OAuth authorize or token
 * endpoint (agents register at /agent/auth), so neither they nor `response_types_supported`
 * appear (RFC 8414 §2 lists it as required, §3.2 omits empty claims; see docs/agents.md).
 */
import { TOKEN_REVOKED } from '../agent/events.ts';
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES, SCOPES } from '../agent/scopes.ts';
import type { McpServerEntry } from './mcp-registry.ts';

export function protectedResourceMetadata(baseUrl: string, mcp?: McpServerEntry) {
  return {
    // RFC 9728 §3.3: the resource the well-known URL was built from
    resource: mcp ? `${baseUrl}${mcp.path}` : baseUrl,
    resource_name: mcp ? `${mcp.title} (MCP)` : 'optout',
    resource_documentation: `${baseUrl}/auth.md`,
    authorization_servers: [baseUrl],
    scopes_supported: mcp ? [...new Set(mcp.tools.flatMap((t) => t.scopes))] : [...SCOPES],
    // RFC 6750 §2.1 only: never a body or query parameter
    bearer_methods_supported: ['header'],
  };
}

export function authorizationServerMetadata(baseUrl: string) {
  const agent = `${baseUrl}/agent/auth`;
  return {
    issuer: baseUrl,
    service_documentation: `${baseUrl}/auth.md`,
    scopes_supported: [...SCOPES],
    // RFC 7009: the revocation endpoint accepts token=… as a form, and needs no client auth
    revocation_endpoint: `${agent}/revoke`,
    revocation_endpoint_auth_methods_supported: ['none'],
    agent_auth: {
      skill: `${baseUrl}/auth.md`,
      register_uri: `${baseUrl}/auth.md`,
      claim_uri: `${baseUrl}/auth.md#claim`,
      revocation_uri: `${agent}/revoke`,
      identity_types_supported: ['anonymous', 'identity_assertion'],
      anonymous: {
        credential_types_supported: ['api_key'],
        claim_uri: `${baseUrl}/auth.md#claim`,
      },
      identity_assertion: {
        assertion_types_supported: ['verified_email'],
        credential_types_supported: ['api_key', 'access_token'],
      },
      // Extensions of this service (docs/agents.md): the POST endpoints the documents above
      // describe, the scopes before and after a claim, and where revocation events are heard.
      endpoints: {
        register: agent,
        claim: `${agent}/claim`,
        claim_complete: `${agent}/claim/complete`,
        revoke: `${agent}/revoke`,
        events: `${agent}/events`,
      },
      scopes: { pre_claim: [...PRE_CLAIM_SCOPES], post_claim: [...POST_CLAIM_SCOPES] },
      revocation_events: {
        endpoint: `${agent}/events`,
        delivery: 'text/event-stream',
        format: 'RFC 8417 SET claims as JSON',
        event_types: [TOKEN_REVOKED],
      },
    },
  };
}
