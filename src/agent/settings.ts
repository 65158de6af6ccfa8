/**
 * Lifetimes, attempt bounds and per-IP limits of agent registration (docs/agents.md), with
 * the clock they are measured by. Tests replace the clock and the limits; the service uses
 * these defaults.
 */
import type { LimitSpec } from '../http/rate-limit.ts';

export interface AgentSettings {
  lifetimes: {
    /** claim token, and the key of an anonymous registration until it is claimed */
    registrationSeconds: number;
    /** the emailed one-time link */
    claimLinkSeconds: number;
    /** a minted 6-digit code */
    otpSeconds: number;
    /** an access_token (no refresh: register again) */
    accessTokenSeconds: number;
  };
  /** wrong codes one minted code survives; the next wrong one kills it (RFC 8628 §5.1 on guessing) */
  maxOtpFailures: number;
  limits: Record<'register' | 'claim' | 'claimPage' | 'complete' | 'revoke' | 'events' | 'mailPerAddress', LimitSpec>;
  /** an open event stream sends a comment this often and checks its credential again */
  heartbeatMs: number;
  /** the clock every expiry is measured by, in ms since the epoch */
  now(): number;
}

export const DEFAULT_AGENT_SETTINGS: AgentSettings = Object.freeze({
  lifetimes: Object.freeze({
    registrationSeconds: 24 * 3600,
    claimLinkSeconds: 600,
    otpSeconds: 600,
    accessTokenSeconds: 3600,
  }),
  maxOtpFailures: 5,
  limits: Object.freeze({
    register: { name: 'agent-register', points: 20, durationSeconds: 3600 },
    claim: { name: 'agent-claim', points: 10, durationSeconds: 3600 },
    claimPage: { name: 'agent-claim-page', points: 30, durationSeconds: 3600 },
    complete: { name: 'agent-complete', points: 30, durationSeconds: 600 },
    revoke: { name: 'agent-revoke', points: 60, durationSeconds: 60 },
    events: { name: 'agent-events', points: 60, durationSeconds: 60 },
    // claim emails to one address, whoever asks: the service must not be a way to flood an inbox
    mailPerAddress: { name: 'agent-mail-to', points: 5, durationSeconds: 3600 },
  }),
  heartbeatMs: 15_000,
  now: () => Date.now(),
});
