/**
 * An IMAP server's byte stream → whole responses, split only into lines and the literals inside
 * them (RFC 3501 §4.3: a line ending in `{n}` is followed by n octets, then the line goes on;
 * RFC 3516's literal8 `~{n}` has the same shape). No other parsing happens here, which is what
 * keeps the scan's hot FETCH cheap: the FETCH reader looks at a few bytes of each response.
 *
 * The stream is a stranger's: every size is capped. A line (all text parts of one response) over
 * `maxLine`, or a declared literal over `maxLiteral`, is a protocol error, never an allocation.
 * Of each literal at most `keepLiteral` bytes are kept; the rest is read and dropped. Lines end
 * at LF with an optional CR before it. Parts are views into the socket's chunks (no copies),
 * except where a line or literal spans chunks.
 */

/** One response: `texts[i]` precedes `literals[i]` (its `{n}` marker included, CRLF not). */
export interface ImapResponse {
  texts: Buffer[];
  literals: Buffer[];
}

export interface TokenizerLimits {
  maxLine: number;
  maxLiteral: number;
  keepLiteral: number;
  /** literals in one response */
  maxLiterals: number;
}

export const DEFAULT_LIMITS: TokenizerLimits = {
  maxLine: 64 * 1024,
  maxLiteral: 64 * 1024 * 1024,
  keepLiteral: 1024 * 1024,
  maxLiterals: 64,
};

export class ImapProtocolError extends Error {
  readonly code = 'PROTOCOL';
}

export interface Tokenizer {
  /** Feed the next chunk; responses are handed to the callback as they complete. Throws ImapProtocolError. */
  push(chunk: Buffer): void;
  /** Bytes of an unfinished response held right now (a line or literal split across chunks). */
  pending(): number;
}

const LF = 10;
const CR = 13;
const EMPTY = Buffer.alloc(0);

export function createTokenizer(limits: TokenizerLimits, onResponse: (r: ImapResponse) => void): Tokenizer {
  let lineParts: Buffer[] = [];
  let lineLen = 0; // bytes in lineParts
  let textLen = 0; // text bytes of the current response so far
  let texts: Buffer[] = [];
  let literals: Buffer[] = [];
  let litLeft = 0; // literal bytes still to read
  let litParts: Buffer[] = [];
  let litKept = 0;
  let failed: ImapProtocolError | null = null;

  const fail = (why: string): never => {
    failed = new ImapProtocolError(why);
    throw failed;
  };

  function push(chunk: Buffer): void {
    if (failed) throw failed;
    let pos = 0;
    while (pos < chunk.length) {
      if (litLeft > 0) {
        const take = Math.min(litLeft, chunk.length - pos);
        const keep = Math.min(take, limits.keepLiteral - litKept);
        if (keep > 0) {
          litParts.push(chunk.subarray(pos, pos + keep));
          litKept += keep;
        }
        litLeft -= take;
        pos += take;
        if (litLeft === 0) {
          literals.push(litParts.length === 1 ? litParts[0]! : Buffer.concat(litParts, litKept));
          litParts = [];
          litKept = 0;
        }
        continue;
      }
      const nl = chunk.indexOf(LF, pos);
      const end = nl < 0 ? chunk.length : nl;
      if (textLen + lineLen + end - pos > limits.maxLine) fail('a response line is too long');
      if (nl < 0) {
        lineParts.push(chunk.subarray(pos));
        lineLen += chunk.length - pos;
        return;
      }
      let line = chunk.subarray(pos, nl);
      if (lineParts.length > 0) {
        lineParts.push(line);
        line = Buffer.concat(lineParts, lineLen + line.length);
        lineParts = [];
        lineLen = 0;
      }
      pos = nl + 1;
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      textLen += line.length;
      texts.push(line);
      const size = literalSize(line);
      if (size < 0) {
        const r = { texts, literals };
        texts = [];
        literals = [];
        textLen = 0;
        onResponse(r);
        continue;
      }
      if (size > limits.maxLiteral) fail('a literal is too large');
      if (literals.length >= limits.maxLiterals) fail('too many literals in one response');
      if (size === 0) literals.push(EMPTY);
      else litLeft = size;
    }
  }

  return { push, pending: () => lineLen + litKept };
}

/** n for a line ending in `{n}` (or the client-side `{n+}`), else -1; more than 10 digits counts as too large. */
export function literalSize(line: Buffer): number {
  let i = line.length - 1;
  if (i < 2 || line[i] !== 0x7d) return -1; // '}'
  i--;
  if (line[i] === 0x2b) i--; // '+'
  const last = i;
  while (i >= 0 && line[i]! >= 0x30 && line[i]! <= 0x39) i--;
  if (i === last || i < 0 || line[i] !== 0x7b) return -1; // no digits, or no '{'
  if (last - i > 10) return Number.MAX_SAFE_INTEGER;
  let n = 0;
  for (let k = i + 1; k <= last; k++) n = n * 10 + (line[k]! - 0x30);
  return n;
}
