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
  return {
    name: normalize(r.name),
    aliases: r.aliases.map(normalize),
    domains: [...new Set([...domains, ...domains.map((d) => d.split('.').at(-2) ?? d)])],
  };
}

const startsWord = (hay: string, needle: string) => hay.startsWith(needle) || hay.includes(` ${needle}`);

/** 0 means no match; higher is better. */
export function score(keys: SearchKeys, q: string): number {
  if (keys.name === q) return 100;
  if (keys.aliases.includes(q) || keys.domains.includes(q)) return 90;
  if (keys.name.startsWith(q)) return 80;
  if (startsWord(keys.name, q)) return 70;
  if (keys.aliases.some((a) => a.startsWith(q)) || keys.domains.some((d) => d.startsWith(q))) return 60;
  if (keys.aliases.some((a) => startsWord(a, q))) return 55;
  if (keys.name.includes(q)) return 50;
  if (keys.aliases.some((a) => a.includes(q)) || keys.domains.some((d) => d.includes(q))) return 40;
  // Several words: every word must begin a word somewhere in the keys.
  const words = q.split(' ');
  if (words.length > 1) {
    const hay = [keys.name, ...keys.aliases, ...keys.domains].join(' ');
    if (words.every((w) => startsWord(hay, w))) return 30;
  }
  return 0;
}

export function search<T extends { keys: SearchKeys }>(entries: readonly T[], rawQuery: string): T[] {
  const q = normalize(rawQuery);
  if (!q) return [...entries];
  return entries
    .map((e, i) => ({ e, i, s: score(e.keys, q) }))
    .filter((x) => x.s > 0)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.e);
}
