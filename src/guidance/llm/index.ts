/** Picks the model client for config.llm; `none` means guides are written by template. */
import { createAnthropicClient } from './anthropic.ts';
import { createOpenAiClient } from './openai.ts';
import type { LlmClient, LlmConfig } from './types.ts';

export type { LlmClient, LlmConfig, LlmFailure, LlmFailureReason, LlmRequest, LlmResult } from './types.ts';

export function createLlmClient(config: LlmConfig, fetchImpl?: typeof fetch): LlmClient | null {
  const options = { apiKey: config.apiKey, baseUrl: config.baseUrl, model: config.model, fetch: fetchImpl };
  switch (config.provider) {
    case 'openai':
      return createOpenAiClient(options);
    case 'anthropic':
      return createAnthropicClient(options);
    case 'none':
      return null;
  }
}
