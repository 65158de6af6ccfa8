/**
 * Batch unsubscribe, independent of any transport (the /ws channel and the MCP tool use
 * it). Each subscription follows its plan (plan.ts): the first method that works wins;
 * a failed one-click falls back to mailto, then to a link for the person. HTTP and SMTP
 * run in separately bounded pools, with a per-host cap, and every outcome — including
 * skips and failures — is reported as data, one result per subscription, as it finishes.
 */
import type { OneClickWithheld, Subscription } from '../mailbox/types.ts';
import type { OutboundGuard } from '../outbound/guard.ts';
import { createLimiter } from './limiter.ts';
import type { MailtoFailure } from './mailto.ts';
import { type OneClickFailure, postOneClick } from './one-click.ts';
import { ONE_CLICK_WITHHELD_DETAIL, planFor, type Step } from './plan.ts';

export type UnsubscribeStatus = 'unsubscribed' | 'email_sent' | 'open_link' | 'skipped' | 'failed';

/**
 * How one method ended: `ok`, or the reason it failed — one-click's (one-click.ts), mailto's
 * (mailto.ts), `blocked` for a link into a private network, `no_smtp` when no SMTP server is known.
 */
export type AttemptOutcome = 'ok' | OneClickFailure | MailtoFailure | 'no_smtp';

export interface Attempt {
  method: 'one_click' | 'mailto' | 'link';
  outcome: AttemptOutcome;
  /** the HTTP status of the sender's answer to a one-click POST, when one came */
  http_status?: number;
}

export interface UnsubscribeResult {
  id: string;
  status: UnsubscribeStatus;
  method: 'one_click' | 'mailto' | 'link' | null;
  url?: string;
  detail: string;
  dry_run: boolean;
  archived?: number;
  /** the sender offered one-click, and why it was not used (docs/unsubscribe.md) */
  one_click_withheld?: OneClickWithheld;
  /** each method tried, in order (not in a dry run, and not for a skip) */
  attempts?: Attempt[];
}

export interface MailtoSender {
  send(
    m: import('../mailbox/types.ts').MailtoMethod,
  ): Promise<{ ok: true; detail: string } | { ok: false; reason: MailtoFailure; detail: string }>;
}

export interface EngineDeps {
  guard: OutboundGuard;
  /** null when no SMTP server is known (custom provider without smtp): mailto is unavailable */
  mailto: MailtoSender | null;
  /** called after a subscription's unsubscribe step; returns how many messages it archived */
  archive?: (sub: Subscription) => Promise<{ moved: number; detail?: string }>;
}

export interface EngineOptions {
  dryRun: boolean;
  includeFlagged: ReadonlySet<string>;
  httpConcurrency?: number;
  perHostConcurrency?: number;
  smtpConcurrency?: number;
  oneClickTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface EngineSummary {
  counts: Record<UnsubscribeStatus, number>;
  archived: number;
  durationMs: number;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

export async function runUnsubscribe(
  subs: Subscription[],
  deps: EngineDeps,
  opts: EngineOptions,
  onResult: (r: UnsubscribeResult) => void,
): Promise<EngineSummary> {
  const started = Date.now();
  const http = createLimiter(opts.httpConcurrency ?? 32, opts.perHostConcurrency ?? 4);
  const smtp = createLimiter(opts.smtpConcurrency ?? 2, opts.smtpConcurrency ?? 2);
  const counts: Record<UnsubscribeStatus, number> = {
    unsubscribed: 0,
    email_sent: 0,
    open_link: 0,
    skipped: 0,
    failed: 0,
  };
  let archived = 0;

  /** why a step was not taken: the stopping signal's reason when it gave one (a shutdown) */
  const stopped = () => (typeof opts.signal?.reason === 'string' ? opts.signal.reason : 'Cancelled.');
  const aborted = () => opts.signal?.aborted === true;
  const STOP = Symbol('stop');
  const onStop = new Promise<typeof STOP>((resolve) => {
    if (aborted()) resolve(STOP);
    else opts.signal?.addEventListener('abort', () => resolve(STOP), { once: true });
  });
  /**
   * Runs `send` under `limit` unless the batch is stopped first: a step still waiting for a slot
   * then gives up at once (null: nothing was sent), while one already sending is awaited, so
   * what it did is reported.
   */
  async function unlessStopped<T>(limit: typeof http, key: string, send: () => Promise<T>): Promise<T | null> {
    let started = false;
    const run = limit(key, async () => {
      if (aborted()) return null;
      started = true;
      return send();
    });
    const first = await Promise.race([run, onStop]);
    if (first !== STOP) return first;
    return started ? run : null;
  }

  type Done = Omit<UnsubscribeResult, 'id' | 'dry_run' | 'attempts'> & { http_status?: number };
  type Failed = { failed: string; outcome: Exclude<AttemptOutcome, 'ok'>; http_status?: number };

  async function attempt(step: Step): Promise<Done | Failed | { stopped: true }> {
    if (step.method === 'link') {
      // We never open the link, but we will not hand a person a link into a private
      // network either (clicking it would reach their own router or a metadata service).
      const url = deps.guard.checkUrl(step.url);
      const where = url.ok ? await deps.guard.resolve(url.url.hostname, Number(url.url.port) || 443) : url;
      // A name that does not resolve here is still offered: the person's own network decides.
      if (!where.ok && where.reason !== 'dns')
        return {
          failed: 'the unsubscribe link points to a private or invalid address, so it is not offered',
          outcome: 'blocked',
        };
      return {
        status: 'open_link',
        method: 'link',
        url: step.url,
        detail:
          'This sender only offers a web page: open it to finish (we never open it for you — that could only confirm a tracking link).',
      };
    }
    if (opts.dryRun) {
      return step.method === 'one_click'
        ? {
            status: 'unsubscribed',
            method: 'one_click',
            detail: `Dry run: would send a one-click request to ${hostOf(step.url)}.`,
          }
        : deps.mailto
          ? {
              status: 'email_sent',
              method: 'mailto',
              detail: `Dry run: would email ${step.mailto.to} from your address.`,
            }
          : { failed: 'no SMTP server is known for your mailbox', outcome: 'no_smtp' };
    }
    if (step.method === 'one_click') {
      const r = await unlessStopped(http, hostOf(step.url), () =>
        postOneClick(deps.guard, step.url, { timeoutMs: opts.oneClickTimeoutMs }),
      );
      if (!r) return { stopped: true };
      if (r.ok) return { status: 'unsubscribed', method: 'one_click', detail: r.detail, http_status: r.status };
      return { failed: r.detail, outcome: r.reason, ...(r.status === null ? {} : { http_status: r.status }) };
    }
    const sender = deps.mailto;
    if (!sender)
      return {
        failed: 'no SMTP server is known for your mailbox, so the unsubscribe email could not be sent',
        outcome: 'no_smtp',
      };
    const r = await unlessStopped(smtp, step.mailto.to.split('@')[1] ?? '', () => sender.send(step.mailto));
    if (!r) return { stopped: true };
    return r.ok
      ? { status: 'email_sent', method: 'mailto', detail: r.detail }
      : { failed: r.detail, outcome: r.reason };
  }

  async function one(sub: Subscription): Promise<void> {
    const plan = planFor(sub, opts.includeFlagged.has(sub.id));
    let result: UnsubscribeResult;
    if ('skip' in plan) {
      result = { id: sub.id, status: 'skipped', method: null, detail: plan.skip, dry_run: opts.dryRun };
    } else {
      const withheld = sub.one_click_withheld;
      const failures: string[] = withheld ? [ONE_CLICK_WITHHELD_DETAIL[withheld]] : [];
      let done: Done | null = null;
      const attempts: Attempt[] = [];
      for (const step of plan.steps) {
        if (aborted()) break;
        const r = await attempt(step);
        if ('stopped' in r) break;
        if ('failed' in r) {
          failures.push(`${step.method === 'one_click' ? 'One-click' : 'Email'}: ${r.failed}`);
          attempts.push({
            method: step.method,
            outcome: r.outcome,
            ...(r.http_status ? { http_status: r.http_status } : {}),
          });
        } else {
          const { http_status, ...rest } = r;
          done = rest;
          attempts.push({ method: step.method, outcome: 'ok', ...(http_status ? { http_status } : {}) });
          break;
        }
      }
      result = done
        ? { id: sub.id, ...done, detail: [...failures, done.detail].join(' '), dry_run: opts.dryRun }
        : {
            id: sub.id,
            status: 'failed',
            method: null,
            detail: failures.join(' ') || stopped(),
            dry_run: opts.dryRun,
          };
      if (withheld) result.one_click_withheld = withheld;
      if (!opts.dryRun && attempts.length) result.attempts = attempts;
      // an item the stop caught before anything was sent is left as it is: nothing archived either
      if (deps.archive && !opts.dryRun && (done || !aborted())) {
        const a = await deps.archive(sub);
        result.archived = a.moved;
        archived += a.moved;
        if (a.detail) result.detail = `${result.detail} ${a.detail}`;
      }
    }
    counts[result.status]++;
    onResult(result);
  }

  await Promise.all(subs.map((s) => one(s)));
  return { counts, archived, durationMs: Date.now() - started };
}
