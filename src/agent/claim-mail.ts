/** The claim email: one link, what pressing its button does, and what to do if it was not you. */
import type { ServiceMail } from '../mail/service-mailer.ts';

export function claimMail(o: { to: string; baseUrl: string; link: string; minutes: number }): ServiceMail {
  const host = new URL(o.baseUrl).host;
  return {
    to: o.to,
    subject: `Link an AI agent to your address at ${host}`,
    text: [
      `An AI agent asked to act for you at optout (${o.baseUrl}) and named this address.`,
      '',
      `To allow it, open this link within ${o.minutes} minutes and press "Show my code":`,
      '',
      o.link,
      '',
      'Then tell your agent the 6-digit code the page shows. The link works for you alone: do not forward it.',
      '',
      'If you did not ask an agent to do this, ignore this email. Nothing happens without the code.',
      '',
      `-- optout, ${o.baseUrl}`,
      '',
    ].join('\n'),
  };
}

export const claimLinkUrl = (baseUrl: string, linkToken: string) =>
  `${baseUrl}/agent/auth/claim/view?token=${encodeURIComponent(linkToken)}`;
