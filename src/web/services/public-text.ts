/**
 * What a service page may show of a record's free text (`notes`, channel and contact notes).
 * Those fields were written by the people who researched the record, and some sentences speak
 * to other editors — where a fact came from ("editorial knowledge", "Cancel Atlas"), what was
 * not read or established, what to re-verify. A reader gets that information in its proper form
 * instead: each fact's confirmed or unconfirmed state with its source and read date, and one
 * sentence naming what is unknown (docs/catalog.md, "The service page"). So such sentences are
 * left out, whole: cutting only a parenthesis would present an unconfirmed claim as settled.
 */

const EDITORIAL: RegExp[] = [
  /editorial/i,
  /establish/i,
  /verif/i,
  /cancel ?atlas/i,
  /third[- ]part/i,
  /\bstored\b/i,
  /\bcorpus|corpora\b/i,
  /official (material|source)/i,
  /\b(not|never|been|was|were|yet|be) read\b/i,
  /\b(pages?|article|policy|text) read\b/i,
  /\bread (page|here|yet|on an?)\b/i,
  /\b(not|been|be|yet|was|were) confirmed\b|\bconfirmed (page|here|from)\b|confirm before/i,
  /\bsources? \d/i,
  /\bassumed\b/i,
  /\b(earlier|second|third) pass\b/i,
  /project note/i,
  /available to read/i,
  /\bunconfirmed\b|\bunofficial\b/i,
  /\b(this|own|the [\w-]+) record\b|\brecord (exists|covers|describes)\b|\bcatalog\b/i,
  /(sender|web) domains?\b/i,
  /\bregion set to\b/i,
  /\bas read on\b/i,
  /current (article|page) says/i,
  /until checked/i,
  /need(s)? checking/i,
  /\bhere\.?$/i,
];

/** A sentence whose brackets do not close was cut short in the data: it is not shown half-said. */
const unbalanced = (s: string) => (s.match(/\(/g)?.length ?? 0) !== (s.match(/\)/g)?.length ?? 0);

/** Sentences end at . ! or ? followed by a space and a capital; "Nr. 9" or "e.g. the" stay whole. */
export const sentences = (text: string) =>
  text
    .trim()
    .split(/(?<!\b(?:e\.g|i\.e|etc|Nr|No|St|Mr|Ms|Dr)\.)(?<=[.!?])\s+(?=[A-Z"“‘(])/)
    .filter(Boolean);

export const isEditorial = (sentence: string) => unbalanced(sentence) || EDITORIAL.some((re) => re.test(sentence));

/** The reader-facing part of a free-text field; '' when nothing is left. */
export function publicText(text: string | undefined): string {
  if (!text) return '';
  return sentences(text)
    .filter((s) => !isEditorial(s))
    .join(' ');
}
