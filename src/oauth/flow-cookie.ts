/**
 * What a browser sign-in must remember between /auth/microsoft/start and the callback — the
 * PKCE verifier (RFC 7636 §4.1), `state` and `nonce` — sealed into a short-lived cookie, so
 * the callback may land on any instance of optout. Sealed means encrypted and authenticated
 * (a JWE, RFC 7516, `dir` + A256GCM, made by jose) under a key every instance shares: a server
 * secret kept in the database. Tokens never go into it. The cookie lives 10 minutes and only
 * on the /auth/microsoft path.
 */
import { serverSecret } from '../quota/secret.ts';
import type { Db } from '../storage/index.ts';

export interface FlowChecks {
  state: string;
  nonce: string;
  verifier: string;
}

export const FLOW_TTL_S = 600;

export interface FlowSealer {
  seal(checks: FlowChecks): Promise<string>;
  /** null when the value is not one of ours, was tampered with, or has expired */
  open(value: string): Promise<FlowChecks | null>;
}

export async function createFlowSealer(db: Db): Promise<FlowSealer> {
  const key = new Uint8Array(await serverSecret(db, 'oauth-flow-seal'));
  // jose loads with the first sign-in, not with every start (docs/benchmarks.md, "First start")
  return {
    seal: async (checks) =>
      new (await import('jose')).EncryptJWT({ ...checks })
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
        .setIssuedAt()
        .setExpirationTime(`${FLOW_TTL_S}s`)
        .encrypt(key),
    async open(value) {
      const { jwtDecrypt } = await import('jose');
      try {
        const { payload } = await jwtDecrypt(value, key, { keyManagementAlgorithms: ['dir'] });
        const { state, nonce, verifier } = payload;
        if (typeof state !== 'string' || typeof nonce !== 'string' || typeof verifier !== 'string') return null;
        return { state, nonce, verifier };
      } catch {
        return null;
      }
    },
  };
}
