/**
 * A fetched page reduced to what the link checker compares: its visible text, normalised so
 * that only edits a reader would notice change the hash, and its title and first heading, where
 * a "not found" page says so.
 *
 * The page is read by htmlparser2's tokenizer, which follows the HTML syntax a browser does where
 * it matters here: script and style content is raw text, a quoted '>' stays inside its attribute,
 * every HTML5 character reference is decoded. Its tree-building Parser is not used: it keeps open
 * elements with Array.unshift, so a page of deeply nested tags costs quadratic time (20,000
 * nested <div>s took seconds). Only which hidden element, title or heading is open matters
 * here, and counting those is linear. The input is capped (512 KiB by default), may be cut off
 * mid-tag and comes from strangers: one linear pass, an element left open runs to the end of
 * the input, and nothing here throws on bad markup.
 */
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

// Elements whose content is not visible text (an <iframe>'s or <noembed>'s is raw text a browser
// does not show). The title is read on its own and kept out of the text so that the hash follows
// the page body; an <svg>'s <title> is a label, not the page's.
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'title', 'iframe', 'noembed', 'noframes']);
// A title or heading is a line; past this many characters (an unclosed <h1>) the rest is not read.
const MAX_LINE = 1000;

export interface PageText {
  /** visible text, normalised (see `normaliseText`) */
  text: string;
  /** contents of the page's `<title>`, whitespace collapsed; null when there is none */
  title: string | null;
  /** the first `<h1>` or `<h2>` outside hidden elements, as text; null when there is none */
  heading: string | null;
}

/** The body as text: charset from Content-Type, else a `<meta charset>` near the top, else UTF-8. */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const label =
    /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1] ??
    'utf-8';
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    // An unknown label is the server's mistake; UTF-8 is what nearly every page is anyway.
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Whether a Content-Type names markup (a missing one is treated as HTML, as browsers sniff). */
export function isHtml(contentType: string | undefined): boolean {
  return contentType === undefined || /html|xml/i.test(contentType);
}

/** Visible text, title and first heading of an HTML document, in one pass. */
export function readHtml(html: string): PageText {
  const text: string[] = [];
  // How many of each hidden element are open; a close tag with none open is ignored.
  const open = new Map<string, number>();
  let hidden = 0;
  let lastOpened = '';
  let title: string | null = null;
  let inTitle = false;
  let heading: string | null = null;
  let headingTag: string | null = null;
  const add = (s: string) => {
    if (inTitle) {
      if (title!.length < MAX_LINE) title += s;
    } else if (hidden === 0) {
      text.push(s);
      if (headingTag !== null && heading!.length < MAX_LINE) heading += s;
    }
  };
  // Every tag and comment separates words, as the line break or box it usually draws does.
  const boundary = () => {
    text.push(' ');
    if (headingTag !== null) heading += ' ';
  };
  const closeHidden = (name: string) => {
    const n = open.get(name) ?? 0;
    if (n === 0) return;
    open.set(name, n - 1);
    hidden--;
    if (name === 'title') inTitle = false;
  };
  const name = (start: number, end: number) => html.slice(start, end).toLowerCase();
  const ignore = () => {};
  const callbacks: TokenizerCallbacks = {
    ontext: (start, end) => add(html.slice(start, end)),
    ontextentity: (codePoint) => add(String.fromCodePoint(codePoint)),
    onopentagname(start, end) {
      const tag = name(start, end);
      lastOpened = tag;
      boundary();
      if (tag === 'title' && hidden === 0 && title === null) {
        title = '';
        inTitle = true;
      }
      if (HIDDEN.has(tag)) {
        open.set(tag, (open.get(tag) ?? 0) + 1);
        hidden++;
      } else if (hidden === 0 && heading === null && (tag === 'h1' || tag === 'h2')) {
        heading = '';
        headingTag = tag;
      }
    },
    onclosetag(start, end) {
      const tag = name(start, end);
      if (HIDDEN.has(tag)) closeHidden(tag);
      else if (tag === headingTag) headingTag = null;
      boundary();
    },
    // `<svg/>` and the self-closing elements inside it are closed at once; in HTML a "/>" means
    // nothing (`<script/>` still opens a script), as in a browser.
    onselfclosingtag() {
      if ((open.get('svg') ?? 0) > 0 && HIDDEN.has(lastOpened)) closeHidden(lastOpened);
    },
    // Inside <svg>, <title> and <style> are ordinary elements, not raw text.
    isInForeignContext: () => (open.get('svg') ?? 0) > 0,
    oncomment: boundary,
    oncdata: boundary,
    onattribdata: ignore,
    onattribentity: ignore,
    onattribend: ignore,
    onattribname: ignore,
    ondeclaration: ignore,
    onend: ignore,
    onopentagend: ignore,
    onprocessinginstruction: ignore,
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
  const line = (s: string | null) => (s === null ? null : s.replace(/\s+/g, ' ').trim().slice(0, MAX_LINE));
  return { text: normaliseText(text.join('')), title: line(title), heading: line(heading) };
}

/**
 * Whitespace collapsed and tokens of only digits and punctuation dropped ("2026-06-04", "12:30",
 * "#48213", "(3)"): a page that only re-stamps its date or a request id must not look edited.
 * Tokens with a letter or symbol ("€9.99", "v2", "30-day") stay; those are what a guide quotes.
 */
export function normaliseText(text: string): string {
  return text
    .split(/\s+/)
    .filter((t) => t !== '' && !/^[\d\p{P}]*\d[\d\p{P}]*$/u.test(t))
    .join(' ');
}

// What error pages put in their title or heading, in the catalog's languages (en, de, fr, es).
// Only titles and headings are tested: help articles mention "404" or "not found" in their text.
const NOT_FOUND = [
  /\bnot found\b/,
  /\b404\b/,
  /\bpage (?:doesn't|does not|no longer) exists?\b/,
  /\bno longer (?:available|exists)\b/,
  /\b(?:can't|cannot|couldn't|could not) (?:be found|find (?:that|this|the) page)\b/,
  /nicht gefunden|nicht mehr verfügbar|seite existiert nicht/,
  /introuvable|n'existe (?:pas|plus)|n'est plus disponible|page non trouvée/,
  /no encontrad[ao]|no se (?:ha encontrado|encontró|pudo encontrar)|ya no está disponible|página no existe/,
];

/** The phrase that makes a title or heading read as a "not found" page, or null. */
export function notFoundPhrase(text: string): string | null {
  const t = text.toLowerCase().replace(/[’‘`´]/g, "'");
  for (const re of NOT_FOUND) {
    const m = re.exec(t);
    if (m) return m[0];
  }
  return null;
}
