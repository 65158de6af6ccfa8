/**
 * Anthropic Messages API (POST {baseUrl}/v1/messages). It has no JSON mode, so the
 * prompt asks for JSON and the caller parses it; here the text blocks are joined.
 */
import { z } from 'zod';
import { postJson } from './http.ts';
import type { LlmClient, LlmResult, ProviderOptions } from './types.ts';

const API_VERSION = '2023-06-01';
// Room for a full guide in any language; the answer is cut off (and rejected) beyond this.
const MAX_TOKENS = 4096;

const Message = z.object({
  content: z.array(z.object({ type: z.string(), text: z.string().optional() })),
  stop_reason: z.string().nullish(),
});

export function createAnthropicClient(o: ProviderOptions): LlmClient {
  const url = `${o.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  const headers: Record<string, string> = { 'anthropic-version': API_VERSION };
  if (o.apiKey) headers['x-api-key'] = o.apiKey;
  return {
    async complete(req): Promise<LlmResult> {
      const r = await postJson({
        url,
        headers,
        body: {
          model: o.model,
          max_tokens: MAX_TOKENS,
          system: req.system,
          messages: [{ role: 'user', content: req.user }],
        },
        timeoutMs: req.timeoutMs,
        signal: req.signal,
        fetch: o.fetch,
      });
      if (!r.ok) return r;
      const parsed = Message.safeParse(r.json);
      if (!parsed.success) return { ok: false, reason: 'bad_response' };
      if (parsed.data.stop_reason === 'max_tokens' || parsed.data.stop_reason === 'refusal') {
        return { ok: false, reason: 'bad_response' };
      }
      const text = parsed.data.content
        .filter((b) => b.type === 'text' && b.text)
        .map((b) => b.text)
        .join('');
      return text ? { ok: true, text } : { ok: false, reason: 'bad_response' };
    },
  };
}
