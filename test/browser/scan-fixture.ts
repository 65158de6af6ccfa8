/**
 * The mailbox and row reader of the inbox-tool browser test (scan.test.ts): generated lists with
 * their ground truth, plus four lists of our own whose unsubscribe targets are loopback peers
 * (one-click, mailto, already read, and one whose DKIM signature fails).
 */
import type { Page } from 'playwright-core';
import { listMessages } from '../fixtures/list-mail.ts';
import { byMailbox, generateMailbox, type MailboxTruth } from '../fixtures/mail-generator.ts';
import type { MaildirMessage } from '../helpers/dovecot.ts';

export interface ScanMailbox {
  truth: MailboxTruth;
  inbox: MaildirMessage[];
  /** the stale list's messages the scan can date after the earlier unsubscription (1 June 2020) */
  mailedSinceLeaving: number;
}

/** `origin`: the one-click endpoint's origin (an HTTPS target on loopback). */
export function scanMailbox(origin: string): ScanMailbox {
  const gen = generateMailbox({ seed: 7, lists: 14, messagesPerList: [1, 9], plain: 12, nasty: false });
  const truth = gen.truth;
  const undated = new Set(['no-date', 'bad-date', 'future-date']);
  const stale = truth.lists.find((l) => l.perMailbox.INBOX && l.lastDate.getTime() > Date.parse('2021-01-01'))!;
  const mailedSinceLeaving = gen.messages.filter(
    (m) =>
      m.key === stale.key &&
      m.mailbox === 'INBOX' &&
      m.date.getTime() > Date.parse('2020-06-01') &&
      !m.quirks.some((q) => undated.has(q)),
  ).length;
  const own = [
    ...listMessages({
      from: 'news@loopback.test',
      listId: 'news.loopback.test',
      oneClick: `${origin}/u/news`,
      count: 6,
    }),
    ...listMessages({
      from: 'deals@loopback.test',
      mailto: 'mailto:leave@loopback.test?subject=unsubscribe',
      count: 4,
    }),
    ...listMessages({ from: 'weekly@loopback.test', oneClick: `${origin}/u/weekly`, count: 5, seen: true }),
    ...listMessages({ from: 'promo@forged-loopback.test', oneClick: `${origin}/u/forged`, count: 3, dkimFail: true }),
  ];
  return { truth, inbox: [...(byMailbox(gen.messages).INBOX ?? []), ...own], mailedSinceLeaving };
}

export interface RowState {
  key: string;
  status: string | null;
  checked: boolean;
  text: string;
}

/** What each row shows: its list key, unsubscribe status, checkbox and text. */
export const rowsOf = (page: Page) =>
  page.evaluate(`[...document.querySelectorAll('#subs-body tr')].map((tr) => ({
    key: tr.dataset.listKey,
    status: tr.dataset.status ?? null,
    checked: tr.querySelector('input[data-role="select"]').checked,
    text: tr.textContent ?? '',
  }))`) as Promise<RowState[]>;
