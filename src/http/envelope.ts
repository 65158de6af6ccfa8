/**
 * The envelope of every /api/v1 response (docs/api.md): `{code, data?, message}`,
 * code "0" on success.
 */
import { z } from 'zod';

export const ok = <T>(data: T, message = '') => ({ code: '0' as const, data, message });

export const envelopeOf = <T extends z.ZodType>(data: T) =>
  z.object({ code: z.literal('0'), data, message: z.string() });

export const ErrorEnvelope = z
  .object({
    code: z.string().describe('stable error code, see docs/api.md'),
    message: z.string().describe('what went wrong, for people; never internals'),
  })
  .describe('Error envelope');
