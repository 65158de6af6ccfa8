/** What the tool advises for each /ws error code (src/channel/errors.ts), with what to do next. */
import type { WsErrorCode } from '../../../channel/protocol.ts';
import { clock, weekdayClock } from './words.ts';

export interface ProviderHelp {
  name: string;
  url: string;
  text: string;
}

type Advice = (message: string, help: ProviderHelp, resetsAt?: string, retryAfter?: number) => string;

/** "at 14:32 (in 25 minutes)", for a wait of `seconds` from now */
function whenAgain(seconds: number | undefined): string {
  if (seconds === undefined) return 'later';
  const at = new Date(Date.now() + seconds * 1000);
  const wait = seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return `at ${clock(at)} (in ${wait})`;
}

/** What to say for each /ws error code (src/channel/errors.ts), with what to do next. */
const ADVICE: Record<WsErrorCode, Advice> = {
  AUTH_FAILED: (_m, help) =>
    `${help.name} did not accept the sign-in. Most providers need an app password here, not your normal password: ${help.text} Also check that the email address is right.`,
  SCAN_QUOTA_EXCEEDED: (_m, _h, resetsAt) =>
    `You have used today’s scans for this address. You can scan again from ${resetsAt ? weekdayClock(resetsAt) : 'tomorrow'}.`,
  CONNECT_FAILED: () =>
    'We could not reach the mail server. Check the server name and port (IMAP over TLS is usually port 993), then try again.',
  TLS_FAILED: () =>
    'The mail server’s security certificate could not be verified, so your password was not sent. The server needs a valid certificate; if it is yours, check its TLS setup.',
  HOST_NOT_ALLOWED: () =>
    'That server address points into a private network, which we do not connect to. Use the server’s public name, such as imap.example.com.',
  TIMEOUT: () =>
    'The mail server took too long to answer. Try again, or scan only recent mail with “Only mail since” under More options.',
  MAILBOX_NOT_FOUND: (message) =>
    `A folder we were asked to read does not exist on this server (${message}). Untick the extra folders under More options and try again.`,
  SCAN_FAILED: () =>
    'The connection to your mail server dropped during the scan. Try again; anything found so far is still shown below.',
  BUSY: () => 'A scan, unsubscribe or audit is still running. Wait for it to finish, or press “Stop scanning”.',
  INVALID_MESSAGE: (message) => `Something in the form was not accepted (${message}). Check the fields and try again.`,
  AUDIT_FAILED: () =>
    'The connection to your mail server dropped while we read your receipts. Your scan results are still here; try the audit again.',
  SESSION_EXPIRED: () =>
    'Our server no longer holds your sign-in: it is wiped 10 minutes after this page loses its connection, and a reconnection that reaches another of our servers does not find it. The results stay on this page; scan again to unsubscribe.',
  SESSION_ENDED: () =>
    'This session reached its one-hour limit and the server wiped your sign-in. The results stay on this page; scan again to unsubscribe.',
  OAUTH_NOT_CONFIGURED: () =>
    'Signing in with Microsoft is not set up on this server, so Outlook and Microsoft 365 mailboxes cannot be scanned here yet.',
  OAUTH_SESSION_EXPIRED: () =>
    'Your Microsoft sign-in has ended or was withdrawn. Press “Sign in with Microsoft” again, then scan.',
  OAUTH_PROVIDER_UNAVAILABLE: () =>
    'Microsoft’s sign-in service could not be reached to renew your sign-in. Nothing was changed; try again in a few minutes.',
  OAUTH_PROVIDER_ERROR: () =>
    'Microsoft refused this server’s request. This is a setup problem on our side, not yours; please try again later.',
  OAUTH_TOKEN_REFUSED: () =>
    'Your mail server did not accept the Microsoft sign-in. IMAP access may be turned off for this mailbox (an administrator can turn it on), or the account has no Outlook mailbox.',
  TOO_MANY_SIGN_IN_FAILURES: (_m, help, _r, retryAfter) =>
    `Too many sign-ins to this address, or from your network, failed in the last hour. To protect your account we will not ask ${help.name} again before ${whenAgain(retryAfter)}. Meanwhile check the address and make sure you use an app password: ${help.text}`,
  TOO_MANY_SCANS: (_m, _h, _r, retryAfter) =>
    `Many scans were started from your network in the last hour, more than we allow. You can scan again ${whenAgain(retryAfter)}.`,
  TOO_MANY_UNSUBSCRIBES: (_m, _h, _r, retryAfter) =>
    `Your network has asked for more unsubscribes in the last hour than we send. Nothing was sent; select fewer senders, or try again ${whenAgain(retryAfter)}.`,
  TOO_MANY_CONNECTIONS: (_m, _h, _r, retryAfter) =>
    `Too many windows or devices on your network are connected to this service at once. Close tabs you do not need, then reload this page ${whenAgain(retryAfter)}.`,
  SERVICE_RESTARTING: () =>
    'Our server is restarting, so the sign-in it held in memory is gone; everything it did was reported above. The page reconnects by itself; the results stay here, and a new scan lets you unsubscribe again.',
  SERVICE_UNAVAILABLE: (_m, _h, _r, retryAfter) =>
    `The service cannot reach its database for a moment, so nothing was done. Please try again ${whenAgain(retryAfter)}.`,
  INTERNAL: () => 'Something went wrong on our side. Please try again in a moment.',
};

export function errorAdvice(
  code: WsErrorCode,
  message: string,
  help: ProviderHelp,
  resetsAt?: string,
  retryAfter?: number,
): string {
  const advice = ADVICE[code] as Advice | undefined;
  return advice
    ? advice(message, help, resetsAt, retryAfter)
    : `Something went wrong (${message || code}). Please try again.`;
}
