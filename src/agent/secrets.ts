/**
 * Agent secrets: opaque, prefixed, 256 bits from the CSPRNG (RFC 6749 §10.10 asks for a guess
 * probability of at most 2^-128; 32 bytes give 2^-256), base64url. The prefix tells a person and
 * a secret scanner what a leaked string is. Only digests are stored: SHA-256 for the
 * high-entropy secrets, an HMAC under a server secret for low-entropy values (a 6-digit code,
 * an email address) whose plain digest could be reversed by trying every value.
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const PREFIX = {
  apiKey: 'sk_live_',
  accessToken: 'at_',
  claimToken: 'clm_',
  claimLink: 'cvt_',
  registration: 'reg_',
  claimAttempt: 'cla_',
  event: 'evt_',
} as const;

/** A new secret: prefix + 32 random bytes, base64url (43 characters). */
export const newSecret = (prefix: string) => prefix + randomBytes(32).toString('base64url');
/** A new identifier (not a secret): prefix + 16 random bytes. */
export const newId = (prefix: string) => prefix + randomBytes(16).toString('base64url');

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
export const hmac = (key: Buffer, s: string) => createHmac('sha256', key).update(s).digest('hex');

/** Equal hex digests, compared in constant time. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A 6-digit one-time code, uniform over 000000–999999. */
export const newOtp = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The prefix and the next 4 characters: enough to recognise a credential, far too little to use it. */
export const hintOf = (secret: string) => {
  const prefix = Object.values(PREFIX).find((p) => secret.startsWith(p)) ?? '';
  return `${secret.slice(0, prefix.length + 4)}…`;
};
