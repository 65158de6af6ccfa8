/**
 * The one logger. Redaction is on for every place a secret could appear: mailbox
 * passwords and tokens must never reach a log line (DESIGN.md §5 Storage).
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.pass',
  '*.accessToken',
  '*.access_token',
  '*.refresh_token',
  '*.refreshToken',
  '*.api_key',
  '*.claim_token',
  '*.otp',
  '*.authorization',
  '*.*.password',
  '*.*.accessToken',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'optout' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
