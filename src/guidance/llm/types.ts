/**
 * The one seam between optout and a language model. Providers differ in wire format
 * only; every expected failure comes back as data with a reason the guide route can
 * turn into 503 LLM_UNAVAILABLE + Retry-After. Results never carry provider messages,
 * headers or request details, so the API key cannot leak through them.
 */

export interface LlmRequest {
  system: string;
  user: string;
  /** whole-call budget: connect, wait and read the answer */
  timeoutMs: number;
  /** the caller giving up (e.g. the HTTP client went away) */
  signal?: AbortSignal | undefined;
}

export type LlmFailureReason = 'timeout' | 'rate_limited' | 'http_error' | 'network' | 'bad_response';

export interface LlmFailure {
  ok: false;
  reason: LlmFailureReason;
  /** HTTP status when the provider answered with one */
  status?: number;
  /** from the provider's Retry-After, when it sent one */
  retryAfterSeconds?: number;
}

export type LlmResult = { ok: true; text: string } | LlmFailure;

export interface LlmClient {
  complete(req: LlmRequest): Promise<LlmResult>;
}

/** config.llm (src/config.ts) */
export interface LlmConfig {
  provider: 'none' | 'openai' | 'anthropic';
  apiKey?: string | undefined;
  baseUrl: string;
  model: string;
  timeoutMs: number;
}

/** what a provider client is built from; `fetch` is replaceable for tests */
export interface ProviderOptions {
  apiKey?: string | undefined;
  baseUrl: string;
  model: string;
  fetch?: typeof fetch;
}
