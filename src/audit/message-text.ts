/**
 * A fetched message (RFC 5322, MIME per RFC 2045–2049) → the text a person reads in it.
 * postal-mime decodes the transfer encodings and charsets; of multipart/alternative the HTML
 * part is read when there is one (it is what mail clients show, and receipts put their totals
 * in its tables), else the plain text. A forwarded message (message/rfc822) inside is not read:
 * a receipt forwarded to oneself is not a second charge. Bad MIME is data: it gives no text.
 */
import PostalMime from 'postal-mime';
import { htmlToText, tidyLines } from './html-text.ts';
import { MAX_TEXT } from './receipt.ts';

/** Largest HTML part turned into text (a receipt is rarely over 100 KB of markup). */
const MAX_HTML = 512 * 1024;

export async function messageText(raw: Uint8Array): Promise<string> {
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(raw, {
      forceRfc822Attachments: true,
      maxNestingDepth: 32,
      maxHeadersSize: 256 * 1024,
      attachmentEncoding: 'arraybuffer',
    });
  } catch {
    return '';
  }
  if (email.html?.trim()) return htmlToText(email.html.slice(0, MAX_HTML)).slice(0, MAX_TEXT);
  return tidyLines((email.text ?? '').slice(0, MAX_TEXT));
}
