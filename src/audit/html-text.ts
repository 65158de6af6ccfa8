/**
 * The text a person sees in an HTML mail, one line per block, the cells of a table row on one
 * line joined by " | ": a receipt's "Total | $12.99" row stays one line, so the label and the
 * amount stay together. What a reader does not see is left out: <head>, scripts, styles, and
 * elements hidden inline (display:none, visibility:hidden, the hidden attribute, font-size:0
 * or max-height:0 — where mail puts its preheader and tracking text). Struck-through text
 * (<s>, <del>, <strike>) is left out too: in mail it is the old price beside a new one.
 *
 * htmlparser2's tokenizer reads the markup as a browser's would (raw text in script and style,
 * every HTML5 character reference decoded); one linear pass, no tree: the input comes from
 * strangers, may be cut off mid-tag, and nothing here throws on bad markup.
 */
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** Content never shown, whatever its style. */
const INVISIBLE = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'title',
  'svg',
  'object',
  's',
  'del',
  'strike',
]);
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'center',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);
const CELL = new Set(['td', 'th']);
const HIDDEN_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em|%)?\s*(?:!important)?\s*(?:;|$)|max-height\s*:\s*0(?:px)?\s*(?:!important)?\s*(?:;|$))/i;

/** Visible text of an HTML document as lines (whitespace collapsed, empty lines dropped). */
export function htmlToText(html: string): string {
  const out: string[] = [];
  // The one hidden element being skipped (its name, and how many of that name are open inside it).
  let hiddenTag: string | null = null;
  let hiddenDepth = 0;
  let tag = '';
  let attr = '';
  let attrValue = '';
  let hideThis = false;
  const ignore = () => {};
  const text = (s: string) => {
    if (hiddenTag === null) out.push(s);
  };
  const callbacks: TokenizerCallbacks = {
    ontext: (start, end) => text(html.slice(start, end)),
    ontextentity: (cp) => text(String.fromCodePoint(cp)),
    onopentagname(start, end) {
      tag = html.slice(start, end).toLowerCase();
      hideThis = INVISIBLE.has(tag);
      if (hiddenTag === null) {
        if (BLOCK.has(tag)) out.push('\n');
        else if (CELL.has(tag)) out.push(' | ');
      }
    },
    onattribname(start, end) {
      attr = html.slice(start, end).toLowerCase();
      attrValue = '';
    },
    onattribdata(start, end) {
      attrValue += html.slice(start, end);
    },
    onattribentity(cp) {
      attrValue += String.fromCodePoint(cp);
    },
    onattribend() {
      if (attr === 'hidden' || (attr === 'style' && HIDDEN_STYLE.test(attrValue))) hideThis = true;
      if (attr === 'aria-hidden' && attrValue.trim().toLowerCase() === 'true' && tag !== 'img') hideThis = true;
    },
    onopentagend() {
      if (VOID.has(tag)) return;
      if (hiddenTag !== null) {
        if (tag === hiddenTag) hiddenDepth++;
      } else if (hideThis) {
        hiddenTag = tag;
        hiddenDepth = 1;
      }
    },
    onselfclosingtag: ignore,
    onclosetag(start, end) {
      const name = html.slice(start, end).toLowerCase();
      if (hiddenTag !== null) {
        if (name === hiddenTag && --hiddenDepth === 0) hiddenTag = null;
        return;
      }
      if (BLOCK.has(name)) out.push('\n');
      else if (CELL.has(name)) out.push(' ');
    },
    oncomment: ignore,
    oncdata: ignore,
    ondeclaration: ignore,
    onprocessinginstruction: ignore,
    onend: ignore,
    // Inside <svg> (itself never shown) nothing needs telling apart.
    isInForeignContext: () => false,
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
  return tidyLines(out.join(''));
}

/** Whitespace collapsed per line, stray cell bars trimmed, empty lines dropped. */
export function tidyLines(text: string): string {
  const lines: string[] = [];
  for (const raw of text.split(/\r?\n|\r/)) {
    const line = raw
      .replace(/\u200b|\u200c|\u200d|\u2060|\ufeff|\u034f|\u00ad/g, '') // zero-width padding of preheaders
      .replace(/[\t\f\v \u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ')
      .replace(/(?:\s*\|\s*)+/g, ' | ')
      .replace(/^\s*\|\s*|\s*\|\s*$/g, '')
      .trim();
    if (line) lines.push(line);
  }
  return lines.join('\n');
}
