/**
 * An OpenAI-compatible Chat Completions server on 127.0.0.1 for tests. Its `mode`
 * decides how it answers and can be switched between requests; every request is
 * recorded (headers and parsed body) so tests can check the model, the key and the
 * prompt. In 'answer' mode it echoes a valid rewrite built from the facts in the
 * prompt (or from `answer(body)` when given).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type LlmStubMode = 'answer' | 'fail500' | 'rate_limited' | 'stall' | 'garbage' | 'wrong_shape' | 'extra_url';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the request body
  body: any;
}

export interface LlmStub {
  /** base URL to use as LLM_BASE_URL (…/v1) */
  url: string;
  mode: LlmStubMode;
  /** replaces the echo in 'answer' mode */
  answer: ((body: RecordedRequest['body']) => unknown) | undefined;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const FOREIGN_URL = 'https://cancel-helper.example.net/now';

/** A faithful rewrite of the facts the guide writer put in the user message. */
export function echoRewrite(body: RecordedRequest['body']) {
  const user = body?.messages?.find((m: { role: string }) => m.role === 'user')?.content;
  const facts = JSON.parse(String(user));
  return {
    entry: facts.service,
    steps: facts.steps.map((s: { title: string; detail: string | null }) => ({
      title: `[${facts.write_in}] ${s.title}`,
      detail: s.detail,
    })),
    traps: facts.traps.map((t: { summary: string; how_to_avoid: string | null }) => ({
      summary: `[${facts.write_in}] ${t.summary}`,
      how_to_avoid: t.how_to_avoid,
    })),
    explanation: `Rewritten in ${facts.write_in}, ${facts.tone} tone; difficulty ${facts.difficulty.tier}.`,
  };
}

export async function startLlmStub(options: { mode?: LlmStubMode; answer?: LlmStub['answer'] } = {}) {
  const stub: LlmStub = {
    url: '',
    mode: options.mode ?? 'answer',
    answer: options.answer,
    requests: [],
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      stub.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return json(res, 404, { error: 'no' });
      try {
        respond(stub, body, res);
      } catch (err) {
        // a broken answer() must fail the request, not crash the test process
        json(res, 500, { error: { message: String(err) } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      // stalled requests hold their sockets open; without this close() would wait forever
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

function respond(stub: LlmStub, body: RecordedRequest['body'], res: ServerResponse) {
  switch (stub.mode) {
    case 'stall':
      return;
    case 'fail500':
      return json(res, 500, { error: { message: 'internal error', type: 'server_error' } });
    case 'rate_limited':
      res.setHeader('retry-after', '7');
      return json(res, 429, { error: { message: 'rate limit reached', type: 'rate_limit_error' } });
    case 'garbage':
      return completion(res, 'Sure! Here is a friendly guide for cancelling your subscription.');
    case 'wrong_shape':
      return completion(res, JSON.stringify({ guide: 'Cancel it online.', steps: 'sign in, cancel', explanation: 5 }));
    case 'extra_url': {
      const a = echoRewrite(body);
      return completion(res, JSON.stringify({ ...a, explanation: `${a.explanation} Faster: ${FOREIGN_URL}` }));
    }
    case 'answer':
      return completion(res, JSON.stringify(stub.answer ? stub.answer(body) : echoRewrite(body)));
  }
}

function completion(res: ServerResponse, content: string) {
  json(res, 200, {
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
}

function json(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
