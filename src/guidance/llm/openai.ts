/**
 * OpenAI-compatible Chat Completions (POST {baseUrl}/chat/completions), the API most
 * hosted and self-hosted models speak. JSON mode is requested; the text is returned
 * as-is and the caller parses and checks it.
 */
import { z } from 'zod';
import { postJson } from './http.ts';
import type { LlmClient, LlmResult, ProviderOptions } from './types.ts';

const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
});

export function createOpenAiClient(o: ProviderOptions): LlmClient {
  const url = `${o.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  // Local servers (llama.cpp, Ollama) need no key; send the header only when there is one.
  const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  return {
    async complete(req): Promise<LlmResult> {
      const r = await postJson({
        url,
        headers,
        body: {
          model: o.model,
          messages: [
            { role: 'system', content: req.system },
            { role: 'user', content: req.user },
          ],
          response_format: { type: 'json_object' },
        },
        timeoutMs: req.timeoutMs,
        signal: req.signal,
        fetch: o.fetch,
      });
      if (!r.ok) return r;
      const parsed = ChatCompletion.safeParse(r.json);
      if (!parsed.success) return { ok: false, reason: 'bad_response' };
      const choice = parsed.data.choices[0]!;
      // A cut-off answer ('length') or a refusal is not a guide, however much text came back.
      const text = choice.message.content;
      if (!text || choice.message.refusal || choice.finish_reason === 'length') {
        return { ok: false, reason: 'bad_response' };
      }
      return { ok: true, text };
    },
  };
}
