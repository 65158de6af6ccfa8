/**
 * Browser sign-ins, in this process's memory only: an opaque random id (the cookie's value)
 * → the signed-in account. The cookie carries nothing but that id; the tokens stay here and
 * are dropped when the session ends (sign-out, or SESSION_TTL_MS after sign-in), when the
 * process stops, or when the provider refuses the refresh token. A /ws connection on another
 * instance does not find the session: the person signs in again (docs/microsoft.md).
 *
 * The cookies: the session one on `/` (`__Host-` prefixed over https, RFC 6265bis §4.1.3.2),
 * the sealed sign-in one (flow-cookie.ts) on /auth/microsoft only; both HttpOnly and
 * SameSite=Lax — Lax, not Strict, because the identity provider's redirect back to the
 * callback is a cross-site top-level navigation that must carry the sign-in cookie.
 */
import { randomBytes } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { OAuthAccount } from './account.ts';
import { FLOW_TTL_S } from './flow-cookie.ts';

export const SESSION_TTL_MS = 60 * 60_000;
export const FLOW_PATH = '/auth/microsoft';

export interface CookieNames {
  session: string;
  flow: string;
  secure: boolean;
}

export function cookieNames(baseUrl: string): CookieNames {
  const secure = baseUrl.startsWith('https:');
  return secure
    ? { session: '__Host-optout_ms', flow: '__Secure-optout_ms_flow', secure }
    : { session: 'optout_ms', flow: 'optout_ms_flow', secure };
}

export const readCookie = (header: string | undefined, name: string): string | undefined =>
  header ? parseCookie(header)[name] : undefined;

export function sessionCookie(names: CookieNames, id: string | null): string {
  return stringifySetCookie({
    name: names.session,
    value: id ?? '',
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: names.secure,
    maxAge: id ? SESSION_TTL_MS / 1000 : 0,
  });
}

export function flowCookie(names: CookieNames, sealed: string | null): string {
  return stringifySetCookie({
    name: names.flow,
    value: sealed ?? '',
    path: FLOW_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: names.secure,
    maxAge: sealed ? FLOW_TTL_S : 0,
  });
}

export interface OAuthSessions {
  create(account: OAuthAccount): string;
  /** the account of a live session, or null */
  get(id: string | undefined): OAuthAccount | null;
  /** ends the session and forgets its tokens; the account it had, or null */
  end(id: string | undefined): Promise<OAuthAccount | null>;
  readonly size: number;
  /** forgets every session without calling the provider (process shutdown) */
  close(): Promise<void>;
}

export function createSessions(ttlMs = SESSION_TTL_MS): OAuthSessions {
  const live = new Map<string, { account: OAuthAccount; expiresAt: number }>();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, s] of live) {
        if (s.expiresAt <= now || !s.account.active) {
          live.delete(id);
          void s.account.forget();
        }
      }
    },
    Math.min(60_000, ttlMs),
  );
  sweep.unref();
  return {
    create(account) {
      // 256 bits: the id is a bearer credential for the session (RFC 6749 §10.10)
      const id = randomBytes(32).toString('base64url');
      live.set(id, { account, expiresAt: Date.now() + ttlMs });
      return id;
    },
    get(id) {
      if (!id) return null;
      const s = live.get(id);
      if (!s || s.expiresAt <= Date.now() || !s.account.active) return null;
      return s.account;
    },
    async end(id) {
      const s = id ? live.get(id) : undefined;
      if (!s) return null;
      live.delete(id!);
      await s.account.forget();
      return s.account;
    },
    get size() {
      return live.size;
    },
    async close() {
      clearInterval(sweep);
      const all = [...live.values()];
      live.clear();
      await Promise.all(all.map((s) => s.account.forget(false)));
    },
  };
}
