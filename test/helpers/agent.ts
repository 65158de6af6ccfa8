/**
 * Drives agent registration end to end against a listening app: the agent's JSON calls over
 * HTTP, the claim email read from a real SMTP sink (parsed with postal-mime), and the person's
 * side — opening the link's page and pressing its button — as a browser would, over HTTP.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import PostalMime from 'postal-mime';
import { createBearerAuth } from '../../src/agent/bearer.ts';
import type { AgentOptions } from '../../src/agent/context.ts';
import { DEFAULT_AGENT_SETTINGS } from '../../src/agent/settings.ts';
import type { Runtime } from '../../src/runtime.ts';
import { type StartOptions, startTestApp, type TestApp } from './app.ts';
import { type Engine, startAppOn } from './engines.ts';
import type { SmtpSink } from './smtp-sink.ts';

export const SINK_USER = 'optout-mailer';
export const SINK_PASSWORD = 'sink-password-1';

export interface AgentApp extends TestApp {
  /** http://127.0.0.1:<port>, where the app listens */
  origin: string;
}

/** Per-IP limits out of the way, for suites about something else (rate-limits.test.ts tests them). */
export const UNLIMITED: AgentOptions['limits'] = Object.fromEntries(
  Object.entries(DEFAULT_AGENT_SETTINGS.limits).map(([k, spec]) => [k, { ...spec, points: 100_000 }]),
);

/** A test clock: starts at the real now and moves only when told. */
export function testClock() {
  let t = Date.now();
  return {
    now: () => t,
    advance(seconds: number) {
      t += seconds * 1000;
    },
  };
}

export async function startAgentApp(
  engine: Engine,
  o: {
    sink?: SmtpSink;
    agent?: AgentOptions;
    env?: Record<string, string>;
    runtime?: Omit<NonNullable<StartOptions['runtime']>, 'agent' | 'worker'>;
  } & Pick<StartOptions, 'setup'> = {},
): Promise<AgentApp> {
  const env: Record<string, string> = { ...o.env };
  if (o.sink) env.SMTP_URL = `smtp://${SINK_USER}:${SINK_PASSWORD}@127.0.0.1:${o.sink.port}`;
  const t = await startAppOn(engine, { env, runtime: { ...o.runtime, worker: false, agent: o.agent }, setup: o.setup });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, origin: `http://127.0.0.1:${port}` };
}

export async function postJson(origin: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(origin + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  const json = (await res.json()) as any;
  return { status: res.status, headers: res.headers, body: json };
}

/** The claim link of the newest message to `to`, waiting for it to arrive. */
export async function claimLinkFor(sink: SmtpSink, to: string, count = 1, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = sink.messages.filter((m) => m.to.some((r) => r.toLowerCase() === to.toLowerCase()));
    if (mails.length >= count) {
      const parsed = await PostalMime.parse(mails[mails.length - 1]!.raw);
      const m = /https?:\/\/\S+\/agent\/auth\/claim\/view\?token=[A-Za-z0-9_%-]+/.exec(parsed.text ?? '');
      assert.ok(m, 'the claim email carries the link');
      return m[0];
    }
    if (Date.now() > deadline) throw new Error(`no claim email to ${to} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The person opens the link and presses "Show my code"; returns the code the page shows. */
export async function pressForCode(origin: string, link: string): Promise<string> {
  const url = new URL(link);
  const page = await fetch(origin + url.pathname + url.search);
  assert.equal(page.status, 200);
  const html = await page.text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token, 'the page carries a form with the link token');
  assert.match(html, /<form method="post" action="\/agent\/auth\/claim\/view">/);
  const pressed = await fetch(`${origin}/agent/auth/claim/view`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  assert.equal(pressed.status, 200);
  const otp = /<strong id="otp">(\d{6})<\/strong>/.exec(await pressed.text())?.[1];
  assert.ok(otp, 'the page shows a 6-digit code');
  return otp;
}

/**
 * Two tiny routes behind the shared Bearer middleware, the way a protected surface uses it:
 * one needs a pre-claim scope, one a post-claim scope. They answer with what the middleware admitted.
 */
export function protectedTestRoutes(app: FastifyInstance, runtime: Runtime) {
  const auth = createBearerAuth(runtime.agent);
  app.get('/test/needs-inbox-read', { preHandler: auth.requireScope('inbox.read') }, async (req) =>
    auth.principal(req),
  );
  app.get('/test/needs-inbox-write', { preHandler: auth.requireScope('inbox.write', 'audit.read') }, async (req) =>
    auth.principal(req),
  );
}

export async function getWith(origin: string, path: string, credential?: string) {
  const res = await fetch(origin + path, { headers: credential ? { authorization: `Bearer ${credential}` } : {} });
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** A second instance on the first one's PostgreSQL database (as behind a load balancer). */
export async function startSecondInstance(first: AgentApp, o: { sink?: SmtpSink; agent?: AgentOptions } = {}) {
  assert.ok(first.db.url, 'a second instance needs PostgreSQL');
  const env: Record<string, string> = {};
  if (o.sink) env.SMTP_URL = `smtp://${SINK_USER}:${SINK_PASSWORD}@127.0.0.1:${o.sink.port}`;
  const t = await startTestApp({ env, databaseUrl: first.db.url, runtime: { worker: false, agent: o.agent } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, origin: `http://127.0.0.1:${port}` } satisfies AgentApp;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * An agent listening on /agent/auth/events, parsing the stream as the WHATWG EventSource
 * algorithm does (fields up to the first colon, a blank line ends an event, comments ignored).
 */
export async function listen(origin: string, credential: string | undefined) {
  const ac = new AbortController();
  const res = await fetch(`${origin}/agent/auth/events`, {
    headers: { accept: 'text/event-stream', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    signal: ac.signal,
  });
  const events: SseEvent[] = [];
  let read = 0;
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let cut = buf.indexOf('\n\n');
          while (cut >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const ev: SseEvent = { data: '' };
            let hasData = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':') || !line) continue;
              const i = line.indexOf(':');
              const field = i < 0 ? line : line.slice(0, i);
              const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
              if (field === 'data') {
                ev.data += (hasData ? '\n' : '') + value;
                hasData = true;
              } else if (field === 'id') ev.id = value;
              else if (field === 'event') ev.event = value;
            }
            if (hasData) events.push(ev);
            wake();
            cut = buf.indexOf('\n\n');
          }
        }
      } catch {
        // aborted by close()
      }
      ended = true;
      wake();
    })();
  }
  const until = async (ok: () => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!ok()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, left);
        waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    events,
    get ended() {
      return ended;
    },
    /** the next event not yet returned */
    async next(timeoutMs = 15_000): Promise<SseEvent> {
      await until(() => events.length > read || ended, 'an event', timeoutMs);
      const e = events[read];
      if (!e) throw new Error('the stream ended without an event');
      read++;
      return e;
    },
    async end(timeoutMs = 15_000) {
      await until(() => ended, 'the stream to end', timeoutMs);
    },
    // biome-ignore lint/suspicious/noExplicitAny: test bodies are checked field by field
    async body(): Promise<any> {
      return res.json();
    },
    close: () => ac.abort(),
  };
}
