/**
 * Catalog search over names, aliases and domains: case- and accent-insensitive
 * ("Deezér" finds Deezer), best match first. Scores are tiers, not a fuzzy metric, so
 * the order is explainable: exact name, exact alias or domain, prefixes, then substrings.
 */
import type { ServiceRecord } from './record.schema.ts';

export interface SearchKeys {
  name: string;
  aliases: string[];
  /** domains, and each domain's first label ("netflix" for netflix.com) */
  domains: string[];
  /** name, aliases and domains joined by spaces: a query (word) not in here matches nothing */
  hay: string;
}

/** NFKD, drop combining marks, lower-case, every run of other characters → one space. */
export function normalize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}.]+/gu, ' ')
    .trim();
}

export function searchKeys(r: ServiceRecord): SearchKeys {
  const domains = [...r.domains.web, ...r.domains.email];
  const keys = {
    name: normalize(r.name),
    aliases: r.aliases.map(normalize),
    domains: [...new Set([...domains, ...domains.map((d) => d.split('.').at(-2) ?? d)])],
  };
  return { ...keys, hay: [keys.name, ...keys.aliases, ...keys.domains].join(' ') };
}

/** A normalized query with what every entry's score needs, computed once per search. */
interface Query {
  q: string;
  /** " q": a word of a key begins with q */
  spaced: string;
  /** the words, when there are several */
  words: { w: string; spaced: string }[] | null;
}

function prepare(q: string): Query {
  const words = q.split(' ');
  return { q, spaced: ` ${q}`, words: words.length > 1 ? words.map((w) => ({ w, spaced: ` ${w}` })) : null };
}

const startsWord = (hay: string, needle: string, spaced: string) => hay.startsWith(needle) || hay.includes(spaced);

/** 0 means no match; higher is better. */
export function score(keys: SearchKeys, q: string): number {
  return scoreQuery(keys, prepare(q));
}

function scoreQuery(keys: SearchKeys, { q, spaced, words }: Query): number {
  // Every tier below needs q, or each of its words, inside one of the keys: most entries stop here.
  if (words ? !words.every(({ w }) => keys.hay.includes(w)) : !keys.hay.includes(q)) return 0;
  if (keys.name === q) return 100;
  if (keys.aliases.includes(q) || keys.domains.includes(q)) return 90;
  if (keys.name.startsWith(q)) return 80;
  if (startsWord(keys.name, q, spaced)) return 70;
  if (keys.aliases.some((a) => a.startsWith(q)) || keys.domains.some((d) => d.startsWith(q))) return 60;
  if (keys.aliases.some((a) => startsWord(a, q, spaced))) return 55;
  if (keys.name.includes(q)) return 50;
  if (keys.aliases.some((a) => a.includes(q)) || keys.domains.some((d) => d.includes(q))) return 40;
  // Several words: every word must begin a word somewhere in the keys.
  if (words?.every(({ w, spaced }) => startsWord(keys.hay, w, spaced))) return 30;
  return 0;
}

/**
 * Which entries contain each string of up to three characters of their keys: a query's
 * candidates are the entries listed under the rarest of its three-character pieces (or under
 * the query itself when it is shorter), a superset of the entries containing it, found without
 * looking at the others. Built once per entries array (catalog arrays never change after loading).
 */
const GRAM = 3;
const gramIndexes = new WeakMap<readonly { keys: SearchKeys }[], Map<string, number[]>>();

function gramIndex(entries: readonly { keys: SearchKeys }[]): Map<string, number[]> {
  let index = gramIndexes.get(entries);
  if (!index) {
    index = new Map();
    for (let i = 0; i < entries.length; i++) {
      const hay = entries[i]!.keys.hay;
      for (let len = 1; len <= GRAM; len++) {
        for (let at = 0; at + len <= hay.length; at++) {
          const gram = hay.slice(at, at + len);
          const list = index.get(gram);
          if (!list) index.set(gram, [i]);
          else if (list.at(-1) !== i) list.push(i);
        }
      }
    }
    gramIndexes.set(entries, index);
  }
  return index;
}

/** Indexes, ascending, of the entries that may contain `needle` (all that do, and maybe a few more). */
function candidates(index: Map<string, number[]>, needle: string): number[] {
  if (needle.length <= GRAM) return index.get(needle) ?? [];
  let best: number[] | undefined;
  for (let at = 0; at + GRAM <= needle.length; at++) {
    const list = index.get(needle.slice(at, at + GRAM)) ?? [];
    if (!best || list.length < best.length) best = list;
    if (!best.length) break;
  }
  return best ?? [];
}

export function search<T extends { keys: SearchKeys }>(entries: readonly T[], rawQuery: string): T[] {
  const q = normalize(rawQuery);
  if (!q) return [...entries];
  const query = prepare(q);
  // Every match contains q, or (several words) each word: score only entries that may contain
  // the longest.
  const needle = query.words ? query.words.reduce((a, b) => (b.w.length > a.w.length ? b : a)).w : q;
  const hits: { e: T; i: number; s: number }[] = [];
  for (const i of candidates(gramIndex(entries), needle)) {
    const e = entries[i]!;
    const s = scoreQuery(e.keys, query);
    if (s > 0) hits.push({ e, i, s });
  }
  return hits.sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.e);
}
