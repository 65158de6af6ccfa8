/**
 * One unsubscribe batch on the page: its rows wait ("Working…") until their result comes, and
 * never keep waiting silently. When the connection drops they say so at once; when the page
 * gets back in touch they wait again and the server replays what finished meanwhile
 * (docs/websocket.md "Sessions"); when the sign-in is gone they say the outcome is unknown and
 * what to do; a batch that ends without a row's result says that too.
 */
import type { UnsubscribeDoneMessage, UnsubscribeResultMessage } from '../../../channel/protocol.ts';
import { byId, el, fill } from '../shared/dom.ts';
import { rememberUnsubscribe } from './history.ts';
import { clearPending, isPending, type Row, setPending, setRowStatus } from './rows.ts';
import { allRows, rowById } from './table.ts';
import { num, plural } from './words.ts';

/** rows of the batch in flight that have no result yet */
const waiting = new Set<Row>();
/** a preview sends nothing, so a drop leaves nothing unknown: its rows just clear */
let preview = false;

export function startBatch(rows: Row[], dryRun: boolean): void {
  waiting.clear();
  preview = dryRun;
  for (const r of rows) {
    waiting.add(r);
    setPending(r, 'working');
  }
}

export function batchResult(r: UnsubscribeResultMessage): void {
  const row = rowById(r.id);
  if (!row) return;
  waiting.delete(row);
  const again = row.tr.dataset.status === (r.dry_run ? `planned-${r.status}` : r.status); // replayed after a resume
  setRowStatus(row, r);
  if (!again && !r.dry_run && (r.status === 'unsubscribed' || r.status === 'email_sent'))
    rememberUnsubscribe(row.sub.list_key);
}

/** The batch's summary, once: the rows say the rest. */
export function batchDone(d: UnsubscribeDoneMessage): void {
  for (const row of allRows()) if (isPending(row)) setPending(row, 'unanswered');
  waiting.clear();
  const c = d.counts;
  const parts = d.dry_run
    ? [
        c.unsubscribed && `${num(c.unsubscribed)} one-click ${c.unsubscribed === 1 ? 'request' : 'requests'}`,
        c.email_sent && plural(c.email_sent, 'unsubscribe email'),
        c.open_link && `${num(c.open_link)} ${c.open_link === 1 ? 'link' : 'links'} for you to open`,
        c.skipped && `${num(c.skipped)} not sent`,
        c.failed && `${num(c.failed)} with no usable method`,
      ]
    : [
        c.unsubscribed &&
          `${num(c.unsubscribed)} ${c.unsubscribed === 1 ? 'request accepted by the sender' : 'requests accepted by their senders'}`,
        c.email_sent && `${plural(c.email_sent, 'email')} sent from your address`,
        c.open_link && `${num(c.open_link)} ${c.open_link === 1 ? 'needs' : 'need'} you to open a link`,
        c.skipped && `${num(c.skipped)} skipped`,
        c.failed && `${num(c.failed)} not sent (each row says why)`,
      ];
  const said = parts.filter(Boolean).join(', ') || 'Nothing to do';
  const box = byId('summary');
  const archived = !d.dry_run && d.archived ? ` ${plural(d.archived, 'old message')} archived.` : '';
  fill(box, [
    el('h3', { text: d.dry_run ? 'Preview (nothing was sent)' : 'Done' }),
    el('p', { text: `${said} (${plural(d.total, 'sender')}).${archived}` }),
    d.dry_run
      ? null
      : el('p', {
          className: 'small muted',
          text: 'A sender accepting the request does not mean its mail stops at once: senders may take up to two days. Scan again after that: this browser remembers what you left, and the scan says which lists kept mailing.',
        }),
  ]);
  box.hidden = false;
  box.focus(); // read out by screen readers from here, so the status line need not repeat it
}

/** The connection dropped: the answers may still come once the page reconnects. Returns the rows waiting. */
export function batchDisconnected(): number {
  for (const row of waiting) setPending(row, preview ? 'working' : 'lost');
  return preview ? 0 : waiting.size;
}

/**
 * Back in touch: the rows wait again. The server replays every result that came meanwhile and
 * the batch's end (a row still without a result then says so, batchDone).
 */
export function batchResumed(): void {
  for (const row of waiting) setPending(row, 'working');
}

/** The sign-in is gone, and with it the batch's answers: each waiting row says so. Returns how many. */
export function batchLost(): number {
  const n = preview ? 0 : waiting.size;
  for (const row of waiting) {
    if (preview) clearPending(row);
    else setPending(row, 'unknown');
  }
  waiting.clear();
  return n;
}

/** The batch was refused before anything was sent: the rows go back to how they were. */
export function batchRefused(): void {
  for (const row of waiting) clearPending(row);
  waiting.clear();
}
