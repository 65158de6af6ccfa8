/**
 * What can go wrong when a person signs in with Microsoft, as stable codes with a sentence
 * they can act on. The same codes reach the browser (the `oauth_error` query after a
 * redirect, `/ws` error messages) and the agent tools. No message ever carries a token, a code
 * or a provider's raw answer.
 */
export const OAUTH_ERRORS = {
  /** the operator has not registered optout with Microsoft (no OAUTH_CLIENT_ID) */
  OAUTH_NOT_CONFIGURED:
    'Signing in with Microsoft is not set up on this server. Its operator needs to register optout with Microsoft and set OAUTH_CLIENT_ID (see docs/microsoft.md).',
  /** the person declined the consent screen, or cancelled the device sign-in */
  OAUTH_CONSENT_REFUSED:
    'You did not allow optout to read your mailbox, so nothing was read. To scan, sign in with Microsoft again and accept.',
  /** RFC 8628 `expired_token`: the device code was not used in time */
  OAUTH_DEVICE_CODE_EXPIRED: 'The sign-in code expired before it was used. Ask for a new code and enter it sooner.',
  /** no sign-in on this connection, signed out, or the refresh token was revoked or has expired */
  OAUTH_SESSION_EXPIRED: 'Your Microsoft sign-in has ended or was withdrawn. Sign in with Microsoft again.',
  /** the browser sign-in could not be matched (took too long, another browser, a replayed link) */
  OAUTH_SIGN_IN_FAILED: 'The sign-in could not be completed: it took too long or was started elsewhere. Start again.',
  /** the identity provider could not be reached, or answered that it is unavailable */
  OAUTH_PROVIDER_UNAVAILABLE:
    'Microsoft’s sign-in service could not be reached. Nothing was changed; try again in a few minutes.',
  /** the identity provider refused optout's own request (a registration or configuration fault) */
  OAUTH_PROVIDER_ERROR:
    'Microsoft refused this server’s sign-in request. Its operator needs to check the app registration (see docs/microsoft.md).',
  /** the mail server refused the access token even after a fresh one */
  OAUTH_TOKEN_REFUSED:
    'The mail server did not accept the Microsoft sign-in. IMAP access may be turned off for this mailbox, or the account has no Outlook mailbox.',
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export type OAuthFailure = { ok: false; code: OAuthErrorCode; message: string };

export const oauthFailure = (code: OAuthErrorCode, message: string = OAUTH_ERRORS[code]): OAuthFailure => ({
  ok: false,
  code,
  message,
});

export const isOAuthErrorCode = (code: string): code is OAuthErrorCode => Object.hasOwn(OAUTH_ERRORS, code);
