/**
 * What to do for one subscription, decided before anything is sent:
 * 1. Safety first: a sender whose mail failed DKIM or DMARC may be forged, and one found
 *    only in Junk is likely spam; acting on either can confirm the address to a spammer,
 *    so they are skipped unless the person included them explicitly.
 * 2. Then the methods in order of reliability: RFC 8058 one-click (a POST the sender
 *    promised to honour), mailto (RFC 2369 §3.2: a message from the subscriber's own
 *    address), and finally a link the person opens — the server never GETs it, because a
 *    GET can trigger tracking without unsubscribing (docs/unsubscribe.md, "Methods").
 */
import type { MailtoMethod, Subscription } from '../mailbox/types.ts';

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
