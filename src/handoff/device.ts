/**
 * The Microsoft sign-in of a scan hand-off, for agents (docs/agents.md, "Outlook"): instead of
 * a connect page, the hand-off carries the device-code pair of RFC 8628 §3.2 (the page to open,
 * the code to type), which the agent relays to the person. The device engine
 * (src/oauth/device.ts) polls the token endpoint as §3.4–3.5 ask; once the person approves, the
 * scan runs here with the account's XOAUTH2 tokens through the same scan session as any other.
 * A refusal, an expired code or a provider that is down becomes the hand-off's `failed` state.
 * The account must be the address the hand-off was opened for; another one is signed out again.
 * Its tokens live in memory with the hand-off and are forgotten (the refresh token revoked,
 * where the provider can) when it ends.
 */
import type { ScanMessage } from '../channel/protocol.ts';
import type { OAuthClient } from '../oauth/client.ts';
import { startDeviceSignIn } from '../oauth/device.ts';
import type { OAuthErrorCode } from '../oauth/errors.ts';
import type { Handoff, HandoffStore } from './store.ts';

export const WRONG_ACCOUNT = 'OAUTH_WRONG_ACCOUNT';

export type DeviceStart = { ok: true } | { ok: false; code: OAuthErrorCode; message: string };

export async function signInWithDevice(store: HandoffStore, h: Handoff, client: OAuthClient): Promise<DeviceStart> {
  const started = await startDeviceSignIn(client);
  if (!started.ok) {
    store.forget(h);
    return { ok: false, code: started.code, message: started.message };
  }
  const { flow } = started;
  h.device = {
    verification_uri: flow.verification_uri,
    ...(flow.verification_uri_complete ? { verification_uri_complete: flow.verification_uri_complete } : {}),
    user_code: flow.user_code,
    interval: flow.interval,
  };
  h.signInFlow = { cancel: flow.cancel };
  void flow.result.then(async (r) => {
    if (h.session.ended) {
      if (r.ok) await r.account.forget(true);
      return;
    }
    h.device = null;
    h.signInFlow = null;
    if (!r.ok) {
      h.status = 'failed';
      h.error = { code: r.code, message: r.message };
      return;
    }
    if (r.account.email.toLowerCase() !== h.request.email.toLowerCase()) {
      await r.account.forget(true);
      h.status = 'failed';
      h.error = {
        code: WRONG_ACCOUNT,
        message: `The Microsoft account signed in is not ${h.request.email}; scan again and sign in with that account.`,
      };
      return;
    }
    h.account = r.account;
    const m: ScanMessage = {
      type: 'scan',
      provider: 'outlook',
      ...(h.request.since ? { since: h.request.since } : {}),
    };
    // the person approved at the identity provider, not here: the scan counts for the agent's registration
    await store.startScan(h, m, { ip: `agent:${h.request.registrationId}` }, r.account);
  });
  return { ok: true };
}
