/**
 * The service page's enhancement: a tone selector that fetches the guide from
 * POST /api/v1/guide, and the link check (linkcheck.ts).
 * Without this script the page still shows the record's steps and the last link status.
 */
import { byId, el, fill } from '../shared/dom.ts';
import { initLinkCheck } from './linkcheck.ts';

interface GuideStep {
  order: number;
  title: string;
  detail: string | null;
  url: string | null;
}
interface Guide {
  explanation: string;
  steps: GuideStep[];
}
async function api<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: T | null; message: string }> {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => ({}))) as { data?: T; message?: string };
  return { status: res.status, data: json.data ?? null, message: json.message ?? '' };
}

/**
 * What the page rendered under each step besides its words — the traps it leads to and whether
 * its source confirms it — kept by position: a guide in another tone has the record's steps in
 * the same order, only worded differently.
 */
const stepExtras = [...document.querySelectorAll('#guide-steps > li')].map((li) =>
  [...li.querySelectorAll(':scope > .step-trap, :scope > .fact-state')].map((n) => n.cloneNode(true)),
);

function showGuide(g: Guide): void {
  byId('guide-explanation').textContent = g.explanation;
  fill(
    byId('guide-steps'),
    g.steps.map((s, i) =>
      el('li', {}, [
        el('p', { className: 'step-title', text: s.title }),
        s.detail ? el('p', { text: s.detail }) : null,
        s.url
          ? el('p', {}, [
              el('a', {
                text: new URL(s.url).hostname + new URL(s.url).pathname,
                attrs: { href: s.url, rel: 'noopener noreferrer' },
              }),
            ])
          : null,
        ...(stepExtras[i] ?? []).map((n) => n.cloneNode(true)),
      ]),
    ),
  );
}

function initTone(slug: string): void {
  const fieldset = byId<HTMLFieldSetElement>('tone');
  const note = byId('guide-status');
  fieldset.hidden = false;
  fieldset.addEventListener('change', async (ev) => {
    const tone = (ev.target as HTMLInputElement).value;
    note.textContent = 'Loading the guide…';
    byId('guide').setAttribute('aria-busy', 'true');
    try {
      const r = await api<Guide>('POST', '/api/v1/guide', { slug, options: { tone } });
      if (r.status === 200 && r.data) {
        showGuide(r.data);
        note.textContent = `Showing the ${tone} guide.`;
      } else if (r.status === 429 || r.status === 503) {
        note.textContent = 'The guide is busy right now; try again in a minute.';
      } else note.textContent = `The guide could not be loaded (${r.message || r.status}).`;
    } catch {
      note.textContent = 'The guide could not be loaded; check your connection.';
    } finally {
      byId('guide').removeAttribute('aria-busy');
    }
  });
}

const guide = document.getElementById('guide');
if (guide?.dataset.slug) initTone(guide.dataset.slug);
const linkBox = document.querySelector<HTMLElement>('.linkcheck');
if (linkBox?.dataset.slug) initLinkCheck(linkBox, linkBox.dataset.slug, api);
