/**
 * What to do for one subscription, decided before anything is sent:
 * 1. Safety first: a sender whose mail failed DKIM or DMARC may be forged, and one found
 *    only in Junk is likely spam; acting on either can confirm the address to a spammer,
 *    so they are skipped unless the person included them explicitly.
 * 2. Then the methods in order of reliability: RFC 8058 one-click (a POST the sender
 *    promised to honour; offered only with DKIM evidence, src/mailbox/one-click-evidence.ts), mailto (RFC 2369 §3.2: a message from the subscriber's own
 *    address), and finally a link the person opens — the server never GETs it, because a
 *    GET can trigger tracking without unsubscribing (docs/unsubscribe.md, "Methods").
 */
import type { MailtoMethod, OneClickWithheld, Subscription } from '../mailbox/types.ts';

/**
 * What a person reads when the sender's one-click was not used (src/mailbox/one-click-evidence.ts):
 * RFC 8058 §3.1 has senders sign both list headers with DKIM, and without that evidence a POST
 * could confirm the address to whoever forged the message.
 */
export const ONE_CLICK_WITHHELD_DETAIL: Record<OneClickWithheld, string> = {
  unauthenticated:
    'One-click was not used: your provider recorded no DKIM check for this message, so it cannot be shown to come from the sender.',
  dkim_failed: 'One-click was not used: the message’s DKIM signature did not verify, so it may be forged.',
  not_aligned:
    'One-click was not used: the message was signed by a domain other than the sender’s, so the sender does not vouch for its unsubscribe address.',
  list_headers_unsigned:
    'One-click was not used: the sender’s DKIM signature does not cover its unsubscribe headers, so someone else could have written them.',
};

export type Step =
  | { method: 'one_click'; url: string }
  | { method: 'mailto'; mailto: MailtoMethod }
  | { method: 'link'; url: string };

export type Plan = { skip: string } | { steps: Step[] };

export function planFor(sub: Subscription, included: boolean): Plan {
  if (!included) {
    if (sub.auth.dkim === 'fail' || sub.auth.dmarc === 'fail') {
      return {
        skip: 'Skipped: this sender’s mail failed authentication (DKIM/DMARC), so it may be forged. Unsubscribing could confirm your address to a spammer; include it explicitly if you trust it.',
      };
    }
    if (sub.junk_only) {
      return {
        skip: 'Skipped: this sender’s mail was found only in Junk/Spam. Unsubscribing from spam tells the sender your address works; include it explicitly if it is a real newsletter.',
      };
    }
  }
  const steps: Step[] = [];
  if (sub.methods.one_click) steps.push({ method: 'one_click', url: sub.methods.one_click });
  const mailto = sub.methods.mailto[0];
  if (mailto) steps.push({ method: 'mailto', mailto });
  const link = sub.methods.http.find((u) => u !== sub.methods.one_click) ?? sub.methods.http[0];
  if (link) steps.push({ method: 'link', url: link });
  if (!steps.length) return { skip: 'Skipped: this sender offers no unsubscribe method we can use.' };
  return { steps };
}
