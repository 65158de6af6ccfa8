/**
 * A fetched page reduced to what the link checker compares:
 * its visible text, normalised so that only edits a reader would notice change the hash, and
 * its title and first heading, where a "not found" page says so.
 *
 * Plain scanning instead of an HTML parser: the input is capped (512 KiB by default), may be cut
 * off mid-tag, and comes from strangers, so every pass here is linear and never throws.
 */

// Elements whose content is not visible text. Title is read separately and kept out of the
// text so that the hash follows the page body. An element cut off by the size cap runs to the end.
const HIDDEN = /<!--|<(script|style|noscript|template|svg|title)\b/gi;
// A tag up to the next '>' (or the end, if the cap cut it off). Quoted '>' inside an attribute
// is not honoured: quote-aware patterns backtrack badly on unclosed quotes, and a stray bit of
// attribute in the text is stable, so it cannot make the hash flap.
const TAG = /<\/?[a-zA-Z!?][^>]*>?/g;
// biome-ignore format: a lookup table reads better packed than one entry a line
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', shy: '', copy: '©', hellip: '…', ndash: '–',
  mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', szlig: 'ß', auml: 'ä',
  ouml: 'ö', uuml: 'ü', Auml: 'Ä', Ouml: 'Ö', Uuml: 'Ü', eacute: 'é', egrave: 'è', ecirc: 'ê', agrave: 'à',
  acirc: 'â', ccedil: 'ç', ntilde: 'ñ', aacute: 'á', iacute: 'í', oacute: 'ó', uacute: 'ú', iexcl: '¡', iquest: '¿',
};

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

/** Visible text of an HTML document, normalised (see `normaliseText`). */
export function htmlText(html: string): string {
  return normaliseText(decodeEntities(dropHidden(html).replace(TAG, ' ')));
}

/** Contents of `<title>`, as text; null when there is none. */
export function htmlTitle(html: string): string | null {
  return elementText(html, /<title\b[^>]*>/i, /<\/title\s*>/i);
}

/** The first `<h1>` or `<h2>` outside scripts and templates, as text; null when there is none. */
export function firstHeading(html: string): string | null {
  const visible = dropHidden(html);
  const open = /<h([12])\b[^>]*>/i.exec(visible);
  if (!open) return null;
  return elementText(visible, /<h[12]\b[^>]*>/i, new RegExp(`</h${open[1]}\\s*>`, 'i'));
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

/** HTML minus comments and hidden elements; linear: each close tag is searched for once. */
function dropHidden(html: string): string {
  const open = new RegExp(HIDDEN.source, 'gi');
  let out = '';
  let pos = 0;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    out += `${html.slice(pos, m.index)} `;
    const close = m[1] ? new RegExp(`</${m[1]}\\s*>`, 'gi') : /-->/g;
    close.lastIndex = open.lastIndex;
    if (!close.exec(html)) return out;
    pos = close.lastIndex;
    open.lastIndex = pos;
  }
  return out + html.slice(pos);
}

function elementText(html: string, openRe: RegExp, closeRe: RegExp): string | null {
  const open = openRe.exec(html);
  if (!open) return null;
  const rest = html.slice(open.index + open[0].length);
  const end = closeRe.exec(rest);
  const inner = end ? rest.slice(0, end.index) : rest.slice(0, 1000);
  return decodeEntities(inner.replace(TAG, ' ')).replace(/\s+/g, ' ').trim();
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[\da-f]+|#\d+|[a-z]+\d*);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
