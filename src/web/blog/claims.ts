/**
 * The checks the blog test runs on every article (and on the small articles of its own
 * hostile cases): what the article says optout does must be served by a route (capabilities.ts),
 * every fact from elsewhere must carry a link and the date it was read, and every link to one
 * of optout's own pages must resolve. The functions only find problems; the test decides.
 */
import { CAPABILITIES, type Capability, FUTURE, NOT_SERVED } from './capabilities.ts';

export interface Problem {
  code: 'UNSERVED_CAPABILITY' | 'NOT_BUILT' | 'PROMISE' | 'CONDITION_MISSING' | 'UNCITED_LINK' | 'BAD_READ_DATE';
  text: string;
}

const NEGATION = /\b(never|not|no|nor|without|doesn['’]t|don['’]t|won['’]t|can['’]t|cannot|isn['’]t)\b/i;

/** The body without front matter. */
export const bodyOf = (source: string) => source.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');

/**
 * The sentences that speak about optout: any sentence naming it, and every sentence under a
 * heading that names it. Table rows count as one sentence each.
 */
export function optoutSentences(body: string): string[] {
  const out: string[] = [];
  let heading = '';
  for (const block of body.split(/\n\s*\n/)) {
    const h = /^#{2,6}\s+(.*)$/m.exec(block);
    if (h && block.trim().startsWith('#')) {
      heading = h[1]!;
      continue;
    }
    const lines = block.trim().startsWith('|') ? block.split('\n') : [block.replace(/\s*\n\s*/g, ' ')];
    for (const line of lines) {
      for (const s of line.split(/(?<=[.!?;:])\s+/)) {
        if (/\boptout\b/i.test(s) || /\boptout\b/i.test(heading)) out.push(s.trim());
      }
    }
  }
  return out.filter(Boolean);
}

/** True when a negation comes before the match in the same clause ("it never watches your mail"). */
function negated(sentence: string, at: number): boolean {
  const clause =
    sentence
      .slice(0, at)
      .split(/[,;:(—]/)
      .at(-1) ?? '';
  return NEGATION.test(clause);
}

function named(sentence: string, c: Capability): boolean {
  const m = c.names.exec(sentence);
  return Boolean(m && !negated(sentence, m.index));
}

/** Problems with what an article says optout does, given which routes the app serves. */
export function capabilityProblems(
  body: string,
  served: (method: string, url: string) => boolean,
  registry: { built: readonly Capability[]; notBuilt: readonly Capability[] } = {
    built: CAPABILITIES,
    notBuilt: NOT_SERVED,
  },
): Problem[] {
  const problems: Problem[] = [];
  const isServed = (route: string) => {
    const [method, url] = route.split(' ') as [string, string];
    return served(method, url);
  };
  for (const s of optoutSentences(body)) {
    if (FUTURE.test(s)) problems.push({ code: 'PROMISE', text: s });
    for (const c of [...registry.built, ...registry.notBuilt]) {
      if (!named(s, c)) continue;
      if (!isServed(c.route)) {
        const code = registry.notBuilt.includes(c) ? 'NOT_BUILT' : 'UNSERVED_CAPABILITY';
        problems.push({ code, text: `${c.id} (${c.route}): ${s}` });
      } else if (c.requires && !c.requires.test(s)) {
        problems.push({ code: 'CONDITION_MISSING', text: `${c.id}: ${s}` });
      }
    }
  }
  return problems;
}

export interface Citation {
  url: string;
  read: string | null;
}

/** Every link to another site, with the "read YYYY-MM-DD" that follows it (before the next link or line end). */
export function citations(body: string): Citation[] {
  const out: Citation[] = [];
  const re = /\[[^\]]*\]\((https?:\/\/[^)\s]+)\)/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    const after = body.slice(m.index + m[0].length).split(/\[|\n/)[0] ?? '';
    out.push({ url: m[1]!, read: /\bread (\d{4}-\d{2}-\d{2})\b/.exec(after)?.[1] ?? null });
  }
  return out;
}

export function citationProblems(body: string, today = new Date()): Problem[] {
  const problems: Problem[] = [];
  for (const c of citations(body)) {
    if (!c.read) problems.push({ code: 'UNCITED_LINK', text: c.url });
    else if (Number.isNaN(Date.parse(c.read)) || Date.parse(c.read) > today.getTime())
      problems.push({ code: 'BAD_READ_DATE', text: `${c.url} read ${c.read}` });
  }
  return problems;
}

/** Links to optout's own pages: markdown links whose target starts with "/". */
export function ownLinks(body: string): string[] {
  return [...body.matchAll(/\]\((\/[^)\s]*)\)/g)].map((m) => m[1]!);
}
