/**
 * Request and response shapes of /agent/auth*, the one definition the routes validate with and
 * the OpenAPI document publishes. Field names follow the auth.md agentic-registration
 * reference, with `api_key` beside `credential` as the service's interface names it.
 */
import { z } from 'zod';
import { SCOPES } from './scopes.ts';

const CredentialType = z.enum(['api_key', 'access_token']);
const Email = z.email().max(254).describe('an email address');
const Secret = z.string().min(1).max(200);
const Scopes = z.array(z.enum(SCOPES)).readonly();
const Instant = z.string().describe('ISO 8601 UTC');

export const RegisterRequest = z.discriminatedUnion('type', [
  z
    .strictObject({
      type: z.literal('anonymous'),
      requested_credential_type: CredentialType.describe('only "api_key" is issued to anonymous registrations'),
    })
    .describe('Anonymous registration'),
  z
    .strictObject({
      type: z.literal('identity_assertion'),
      assertion_type: z.literal('verified_email'),
      assertion: Email.describe('the person’s email address; the claim email goes there at once'),
      requested_credential_type: CredentialType.optional().describe('issued at claim completion; default api_key'),
    })
    .describe('Verified-email registration'),
]);

const ClaimPart = {
  registration_id: z.string(),
  claim_url: z.string().describe('POST here with {claim_token, email} to start the claim'),
  claim_token: z.string().describe('secret; shown once'),
  claim_token_expires: Instant,
  post_claim_scopes: Scopes,
};

export const RegisterResponse = z.union([
  z
    .object({
      ...ClaimPart,
      registration_type: z.literal('anonymous'),
      credential_type: z.literal('api_key'),
      credential: z.string().describe('secret; shown once'),
      api_key: z.string().describe('the same value as credential'),
      credential_expires: Instant.nullable().describe('the key ends with the registration unless it is claimed'),
      scopes: Scopes,
    })
    .describe('Anonymous: an api_key now'),
  z
    .object({
      ...ClaimPart,
      registration_type: z.literal('email-verification'),
      credential_type: CredentialType.describe('issued by POST /agent/auth/claim/complete'),
    })
    .describe('Verified email: the claim email was sent'),
]);

export const ClaimRequest = z.strictObject({
  claim_token: Secret,
  email: Email.describe('where the one-time claim link is sent'),
});

export const ClaimResponse = z.object({
  registration_id: z.string(),
  claim_attempt_id: z.string(),
  status: z.literal('initiated'),
  expires_at: Instant.describe('when the emailed link stops working'),
});

export const CompleteRequest = z.strictObject({
  claim_token: Secret,
  otp: z
    .string()
    .regex(/^[0-9]{6}$/, 'six digits')
    .describe('the 6-digit code the person read on the claim page'),
});

export const CompleteResponse = z.object({
  registration_id: z.string(),
  status: z.literal('claimed'),
  credential_type: CredentialType.optional().describe('verified-email registrations: the new credential'),
  credential: z.string().optional(),
  api_key: z.string().optional(),
  access_token: z.string().optional(),
  credential_expires: Instant.nullable().optional(),
  scopes: Scopes.optional(),
});

/** JSON names the secret's kind; the RFC 7009 form sends `token` (and an advisory hint). */
export const RevokeRequest = z.union([
  z.strictObject({ api_key: Secret }),
  z.strictObject({ access_token: Secret }),
  z.strictObject({ claim_token: Secret }),
  z.strictObject({
    token: Secret,
    token_type_hint: z.string().max(50).optional().describe('advisory (RFC 7009 §2.1)'),
  }),
]);

export const RevokeResponse = z.object({ status: z.literal('revoked') });

export const ClaimPageForm = z.strictObject({ token: Secret });
