/** Everything the tool says to a person: numbers, dates, phases, statuses, and error advice. */
import type { Progress, UnsubscribeResult, UnsubscribeStatus } from './types.ts';

const NUM = new Intl.NumberFormat('en');
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', weekday: 'short' });

export const num = (n: number) => NUM.format(n);
export const percent = (rate: number) => `${Math.round(rate * 100)}%`;
export const perMonth = (n: number) => (n >= 10 ? String(Math.round(n)) : n.toFixed(1));
export const day = (iso: string | null) => (iso ? DAY.format(new Date(iso)) : '—');
export const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

export function phaseText(p: Progress): string {
  switch (p.phase) {
    case 'connecting':
      return 'Connecting to your mail server…';
    case 'listing':
      return 'Looking at your folders…';
    case 'searching':
      return `Finding messages${p.mailbox ? ` in ${p.mailbox}` : ''}…`;
    case 'fetching':
      return `Reading message headers: ${num(p.done ?? 0)} of ${num(p.total ?? 0)}${p.mailbox ? ` (${p.mailbox})` : ''}`;
    case 'finishing':
      return 'Finishing up…';
  }
}

export const METHOD_WORD: Record<string, string> = { one_click: 'one-click', mailto: 'email', link: 'link' };

const STATUS_WORDS: Record<UnsubscribeStatus, [done: string, planned: string]> = {
  unsubscribed: ['Unsubscribed', 'Will unsubscribe'],
  email_sent: ['Unsubscribe email sent', 'Will send an unsubscribe email'],
  open_link: ['Open the sender’s page to finish', 'You will need to open the sender’s page'],
  skipped: ['Skipped', 'Will skip'],
  failed: ['Failed', 'Would fail'],
};

export function statusLabel(r: UnsubscribeResult): string {
  const [done, planned] = STATUS_WORDS[r.status] ?? [r.status, r.status];
  const how = r.method && r.status !== 'skipped' && r.status !== 'failed' ? ` (${METHOD_WORD[r.method]})` : '';
  return `${r.dry_run ? planned : done}${how}`;
}

export interface ProviderHelp {
  name: string;
  url: string;
  text: string;
}

/** What to say for each /ws error code (docs/websocket.md), with what to do next. */
export function errorAdvice(code: string, message: string, help: ProviderHelp, resetsAt?: string): string {
  switch (code) {
    case 'AUTH_FAILED':
      return `${help.name} did not accept the sign-in. Most providers need an app password here, not your normal password: ${help.text} Also check that the email address is right.`;
    case 'SCAN_QUOTA_EXCEEDED':
      return `You have used today’s free scans for this address. You can scan again from ${resetsAt ? TIME.format(new Date(resetsAt)) : 'tomorrow'}.`;
    case 'CONNECT_FAILED':
      return 'We could not reach the mail server. Check the server name and port (IMAP over TLS is usually port 993), then try again.';
    case 'TLS_FAILED':
      return 'The mail server’s security certificate could not be verified, so your password was not sent. The server needs a valid certificate; if it is yours, check its TLS setup.';
    case 'HOST_NOT_ALLOWED':
      return 'That server address points into a private network, which we do not connect to. Use the server’s public name, such as imap.example.com.';
    case 'TIMEOUT':
      return 'The mail server took too long to answer. Try again, or scan only recent mail with “Only mail since” under More options.';
    case 'MAILBOX_NOT_FOUND':
      return `A folder we were asked to read does not exist on this server (${message}). Untick “Also look in Junk / Spam” and try again.`;
    case 'SCAN_FAILED':
      return 'The connection to your mail server dropped during the scan. Try again; anything found so far is still shown below.';
    case 'BUSY':
      return 'A scan or unsubscribe is still running. Wait for it to finish, or press “Stop scanning”.';
    case 'INVALID_MESSAGE':
      return `Something in the form was not accepted (${message}). Check the fields and try again.`;
    case 'INTERNAL':
      return 'Something went wrong on our side. Please try again in a moment.';
    default:
      return `Something went wrong (${message || code}). Please try again.`;
  }
}
