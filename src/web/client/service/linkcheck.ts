/**
 * "Check this link" / "Re-check this link": queues a check of every link of the record
 * (POST /api/v1/link-check), then polls the record until the checks land and writes each result
 * where the page showed "Not checked yet" — the summary's status line and the links table.
 */
import { formatDateTime, linkCheckText, linkStatusLine } from '../../shared/words.ts';
import { byId } from '../shared/dom.ts';

interface Check {
  outcome: string;
  http_status: number | null;
  checked_at: string;
  last_reached_at?: string | null;
}
interface RecordJson {
  link_status: Check | null;
  links: { url: string; check: Check | null }[];
}
type Api = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; data: unknown; message: string }>;

const POLL_MS = 1500;
const POLLS = 10;

/** The links-table cells this page rendered, by URL, with the check time they showed. */
function tableCells(): Map<string, { cell: HTMLElement; seen: string }> {
  const cells = new Map<string, { cell: HTMLElement; seen: string }>();
  for (const cell of document.querySelectorAll<HTMLElement>('td.lc-cell[data-url]'))
    cells.set(cell.dataset.url ?? '', { cell, seen: cell.dataset.checkedAt ?? '' });
  return cells;
}

function showCheck(cell: HTMLElement, c: Check): void {
  const span = document.createElement('span');
  span.className = `linkcheck-result lc-${c.outcome}`;
  span.textContent = linkCheckText(c);
  cell.replaceChildren(span);
  cell.dataset.checkedAt = c.checked_at;
  const reached = cell.parentElement?.querySelector('.lc-reached');
  if (reached && c.last_reached_at) reached.textContent = formatDateTime(c.last_reached_at);
}

export function initLinkCheck(box: HTMLElement, slug: string, api: Api): void {
  const main = byId<HTMLButtonElement>('recheck');
  const line = byId('link-status');
  const buttons = [main, ...document.querySelectorAll<HTMLButtonElement>('button.check-link')];
  let seen = box.dataset.checkedAt ?? '';
  for (const b of buttons) b.hidden = false;
  const say = (text: string) => {
    line.textContent = text;
  };

  async function run(): Promise<void> {
    for (const b of buttons) b.disabled = true;
    say('Queuing a check of this service’s links…');
    const cells = tableCells();
    try {
      const q = await api('POST', '/api/v1/link-check', { slug });
      if (q.status !== 202) {
        say(
          q.status === 429
            ? 'Too many checks just now; try again in a minute.'
            : `The check could not be queued (${q.message || q.status}).`,
        );
        return;
      }
      say('Queued: checking the links…');
      for (const { cell } of cells.values())
        if (cell.querySelector('.lc-none')) cell.querySelector('.lc-none')!.textContent = 'Checking…';
      for (let i = 0; i < POLLS; i++) {
        await new Promise((r) => setTimeout(r, POLL_MS));
        const r = await api('GET', `/api/v1/services/${encodeURIComponent(slug)}`);
        const rec = r.data as RecordJson | null;
        if (!rec) continue;
        let pending = 0;
        for (const l of rec.links) {
          const c = cells.get(l.url);
          if (!c) continue;
          if (l.check && l.check.checked_at !== c.seen) {
            showCheck(c.cell, l.check);
            c.seen = l.check.checked_at;
            c.cell.dataset.done = '1';
          } else if (!c.cell.dataset.done) pending++;
        }
        const s = rec.link_status;
        if (s && s.checked_at !== seen && pending === 0) {
          seen = s.checked_at;
          say(linkStatusLine(s));
          main.textContent = 'Re-check this link';
          for (const { cell } of cells.values()) delete cell.dataset.done;
          return;
        }
      }
      say('The check is queued and still running; reload the page in a minute to see the result.');
    } catch {
      say('The check could not be queued; check your connection.');
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  }
  for (const b of buttons) b.addEventListener('click', () => void run());
}
