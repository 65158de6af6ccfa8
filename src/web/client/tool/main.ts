/**
 * The inbox tool (`/`): quota look-ups, the live scan over /ws, the results table,
 * unsubscribing and the audit. Loaded as a module, so it runs after the page is parsed.
 */
import type {
  DoneMessage,
  ErrorMessage,
  ProgressMessage,
  ServerMessage,
  ServerMessageOf,
} from '../../../channel/protocol.ts';
import { isOAuthErrorCode, OAUTH_ERRORS } from '../../../oauth/errors.ts';
import { byId, el, fill } from '../shared/dom.ts';
import { errorAdvice } from './advice.ts';
import { auditProgress, renderAudit, resetAudit } from './audit.ts';
import {
  batchDisconnected,
  batchDone,
  batchLost,
  batchRefused,
  batchResult,
  batchResumed,
  startBatch,
} from './batch.ts';
import { type ChannelEvent, openChannel } from './connection.ts';
import { emailValue, initForm, providerHelp, scanMessage, setScanning } from './form.ts';
import { loadHistory } from './history.ts';
import { waitingText } from './statuses.ts';
import { clearTable, countText, includedFlagged, initTable, rowCount, select, selected, upsert } from './table.ts';
import { cappedText, clock, num, phaseText, plural } from './words.ts';

let busy: 'scan' | 'unsubscribe' | 'audit' | null = null;
/** whether the server still holds the sign-in of the scan the table shows */
let signedIn = false;
let lastQuotaEmail = '';

const status = (text: string) => {
  byId('status').textContent = text;
};

/** Says what happened to the connection (a live region of its own, kept until the next scan). */
function notice(text: string): void {
  const box = byId('notice');
  box.textContent = text;
  box.hidden = !text;
}

function showError(text: string, link?: { href: string; label: string }): void {
  const box = byId('error');
  fill(box, [
    el('p', { text }),
    link
      ? el('p', {}, [
          el('a', { text: link.label, attrs: { href: link.href, target: '_blank', rel: 'noopener noreferrer' } }),
        ])
      : null,
  ]);
  box.hidden = false;
}

function onProgress(p: ProgressMessage): void {
  if (p.phase === 'audit') {
    auditProgress(p);
    if (p.done === 0) status(phaseText(p));
    return;
  }
  const bar = byId<HTMLProgressElement>('progress');
  if (p.phase === 'fetching' && p.total) {
    bar.max = p.total;
    bar.value = p.done;
  } else if (p.phase === 'finishing') {
    bar.max = 1;
    bar.value = 1;
  } else bar.removeAttribute('value'); // indeterminate until there is something to count
  byId('progress-label').textContent = phaseText(p);
  // Only phase changes are announced; per-batch counts would flood a screen reader.
  if (p.phase !== 'fetching' || p.done === 0) status(phaseText(p));
}

function onDone(d: DoneMessage): void {
  busy = null;
  setScanning(false);
  const where = d.mailboxes.map((m) => `${m.path} ${num(m.messages)}`).join(', ');
  byId('progress-label').textContent =
    `${d.cancelled ? 'Stopped' : 'Done'}: ${plural(d.scanned, 'message')} read in ${(d.duration_ms / 1000).toFixed(1)} s${where ? ` (${where})` : ''}.`;
  status(
    `${d.cancelled ? 'Scan stopped. ' : ''}Found ${plural(d.subscriptions, 'subscription')}.` +
      verificationText(d.verification) +
      d.capped.map((c) => ` ${cappedText(c)}`).join(''),
  );
  byId('results').hidden = rowCount() === 0 && d.subscriptions === 0;
  resetAudit(true);
  updateSelection();
}

/** What the scan found about the lists this browser left earlier, in one sentence. */
function verificationText(v: DoneMessage['verification']): string {
  if (!v.length) return '';
  const still = v.filter((x) => x.status === 'ineffective').length;
  const quiet = v.filter((x) => x.status === 'verified_quiet').length;
  const pending = v.length - still - quiet;
  const parts = [
    still && `${num(still)} still mailing`,
    quiet && `${num(quiet)} sent nothing new`,
    pending && `${num(pending)} left too recently to tell`,
  ].filter(Boolean);
  return ` Of the ${plural(v.length, 'list')} you left earlier: ${parts.join(', ')}${still ? ' (marked below)' : ''}.`;
}

const NOTHING_SENT = new Set<ErrorMessage['code']>([
  'BUSY',
  'INVALID_MESSAGE',
  'TOO_MANY_UNSUBSCRIBES',
  'SERVICE_UNAVAILABLE',
]);

function onError(e: ErrorMessage): void {
  const help = providerHelp();
  const wasUnsubscribing = busy === 'unsubscribe';
  if (busy === 'audit') resetAudit(true);
  if (busy === 'scan') {
    byId('progress-label').textContent = 'The scan stopped; see the message below.';
    byId('scan').hidden = rowCount() === 0;
  }
  busy = null;
  setScanning(false);
  // these refuse a batch before anything is sent (docs/websocket.md "Error codes"); after any
  // other error mid-batch, what was sent is not known
  if (wasUnsubscribing) {
    if (NOTHING_SENT.has(e.code)) batchRefused();
    else batchLost();
  }
  if (wasUnsubscribing && e.code === 'INVALID_MESSAGE') {
    showError(`Unsubscribing could not start: ${e.message}. Scan again, then try once more.`);
  } else if (e.code === 'AUTH_FAILED' && help.url) {
    showError(errorAdvice(e.code, e.message, help), {
      href: help.url,
      label: `Create an app password for ${help.name}`,
    });
  } else showError(errorAdvice(e.code, e.message, help, e.resets_at, e.retry_after));
  status('');
}

/** One handler per server message type: a type the server adds and the page ignores does not compile. */
const HANDLERS: { [T in ServerMessage['type']]: (m: ServerMessageOf<T>) => void } = {
  ready: () => {},
  resumed: () => {},
  quota: (m) => {
    if (m.email === emailValue())
      byId('quota').textContent = `${plural(m.scans_left, 'scan')} left today for this address.`;
  },
  progress: onProgress,
  subscription: (m) => {
    byId('results').hidden = false;
    upsert(m.subscription);
    byId('results-count').textContent = countText();
  },
  done: onDone,
  error: onError,
  unsubscribe_result: batchResult,
  unsubscribe_done: (m) => {
    busy = null;
    batchDone(m);
    status('');
  },
  audit: (m) => {
    busy = null;
    renderAudit(m);
    status(`Audit done: ${plural(m.audit.spend.services.length, 'paid service')} found in your receipts.`);
  },
};

function dispatch(m: ServerMessage): void {
  const handle = HANDLERS[m.type] as (m: ServerMessage) => void;
  handle(m);
}

function updateSelection(): void {
  const n = selected().length;
  byId('selected-count').textContent = `${num(n)} selected`;
  byId('unsubscribe').textContent = n ? `Unsubscribe selected (${num(n)})` : 'Unsubscribe selected';
  byId('results-count').textContent = countText();
}

/** The sign-in is gone: what is on the page stays, acting on it needs a new scan. */
function signedOut(text: string): void {
  signedIn = false;
  const unknown = batchLost();
  if (busy === 'scan') byId('progress-label').textContent = 'The scan stopped.';
  busy = null;
  setScanning(false);
  byId('session-note').textContent = '';
  notice(unknown ? `${text} ${waitingText('unknown', unknown)}` : text);
}

function onChannel(e: ChannelEvent): void {
  switch (e.kind) {
    case 'session':
      byId('session-note').textContent =
        `Your sign-in stays in our server’s memory until ${clock(e.expiresAt)} at the latest, and for 10 minutes if this page loses its connection; then it is wiped.`;
      break;
    case 'reconnecting': {
      const waiting = batchDisconnected();
      notice(`The connection to our server dropped. Reconnecting…${waiting ? ` ${waitingText('lost', waiting)}` : ''}`);
      break;
    }
    case 'resumed':
      batchResumed();
      notice(
        `Reconnected. Your results and selection are as you left them${e.running ? `; the ${e.running === 'scan' ? 'scan' : 'unsubscribing'} went on meanwhile` : ''}.`,
      );
      break;
    case 'restarting':
      if (signedIn || busy) signedOut(errorAdvice('SERVICE_RESTARTING', '', providerHelp()));
      else notice('Our server is restarting. Reconnecting…');
      break;
    case 'expired': {
      if (e.afterRestart) {
        const unknown = batchLost(); // a restart reports everything it did first; a row still waiting hears nothing
        notice(
          `Reconnected after our server restarted. The results stay on this page; scan again to unsubscribe.${unknown ? ` ${waitingText('unknown', unknown)}` : ''}`,
        );
      } else if (signedIn || busy) signedOut(errorAdvice('SESSION_EXPIRED', '', providerHelp()));
      break;
    }
    case 'ended':
      if (signedIn || busy) signedOut(errorAdvice('SESSION_ENDED', '', providerHelp()));
      break;
    case 'replaced':
      signedOut('This scan was taken over by another window or tab; continue there, or scan again here.');
      break;
    case 'lost':
      if (signedIn || busy)
        signedOut(
          'The connection could not be restored, so the sign-in is gone. The results stay here; scan again to unsubscribe.',
        );
      break;
  }
}

const channel = openChannel(dispatch, onChannel);

function startScan(ev: Event): void {
  ev.preventDefault();
  const form = byId<HTMLFormElement>('scan-form');
  if (!form.reportValidity() || busy) return;
  byId('error').hidden = true;
  byId('summary').hidden = true;
  clearTable();
  byId('results').hidden = true;
  resetAudit(false);
  byId('scan').hidden = false;
  byId<HTMLProgressElement>('progress').removeAttribute('value');
  notice('');
  channel.send(scanMessage(loadHistory()));
  signedIn = true;
  busy = 'scan';
  setScanning(true);
}

function unsubscribe(dryRun: boolean): void {
  const rows = selected();
  if (!rows.length) {
    status('Select at least one subscription first.');
    return;
  }
  if (busy) {
    status('Wait for the current step to finish.');
    return;
  }
  if (!signedIn) {
    showError('The sign-in of this scan is gone from our server. Scan again, then unsubscribe.');
    return;
  }
  byId('error').hidden = true;
  byId('summary').hidden = true;
  startBatch(rows, dryRun);
  busy = 'unsubscribe';
  status(dryRun ? 'Preparing a preview…' : `Unsubscribing from ${plural(rows.length, 'sender')}…`);
  channel.send({
    type: 'unsubscribe',
    ids: rows.map((r) => r.sub.id),
    archive: byId<HTMLInputElement>('archive').checked,
    dry_run: dryRun,
    include_flagged: includedFlagged(),
  });
}

function audit(): void {
  if (busy) {
    status('Wait for the current step to finish.');
    return;
  }
  if (!signedIn) {
    showError('The sign-in of this scan is gone from our server. Scan again, then run the audit.');
    return;
  }
  byId('error').hidden = true;
  byId<HTMLButtonElement>('audit-button').disabled = true;
  busy = 'audit';
  channel.send({ type: 'audit' });
}

function onEmailChange(): void {
  const email = emailValue();
  if (!email || email === lastQuotaEmail) return;
  lastQuotaEmail = email;
  channel.send({ type: 'quota', email });
}

/** Back from a Microsoft sign-in that failed: `/?oauth_error=CODE` (docs/microsoft.md §4). */
function showSignInError(): void {
  const url = new URL(location.href);
  const code = url.searchParams.get('oauth_error');
  if (!code) return;
  showError(isOAuthErrorCode(code) ? OAUTH_ERRORS[code] : 'The sign-in with Microsoft did not complete. Try again.');
  url.searchParams.delete('oauth_error');
  history.replaceState(null, '', url.pathname + url.search + url.hash);
}

initForm();
showSignInError();
initTable(updateSelection);
byId('scan-form').addEventListener('submit', startScan);
byId('cancel-button').addEventListener('click', () => channel.send({ type: 'cancel' }));
byId('email').addEventListener('change', onEmailChange);
byId('email').addEventListener('blur', onEmailChange);
byId('preview').addEventListener('click', () => unsubscribe(true));
byId('unsubscribe').addEventListener('click', () => unsubscribe(false));
byId('audit-button').addEventListener('click', audit);
for (const b of document.querySelectorAll<HTMLButtonElement>('[data-select]'))
  b.addEventListener('click', () => select(b.dataset.select as 'all' | 'none' | 'rarely'));
