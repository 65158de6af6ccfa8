/**
 * JavaScript's `\b` knows only ASCII word characters, so "reçu" has no word edge after its "ç"
 * and "économisez" none before its "é". `u()` rewrites `\b` to an edge between a Unicode letter
 * or digit and anything else.
 */
const EDGE = String.raw`(?:(?<=[\p{L}\p{N}])(?![\p{L}\p{N}])|(?<![\p{L}\p{N}])(?=[\p{L}\p{N}]))`;

/** The same expression, with `\b` at Unicode word edges and the `u` flag. */
export function u(re: RegExp): RegExp {
  return new RegExp(re.source.replaceAll('\\b', EDGE), re.flags.includes('u') ? re.flags : `${re.flags}u`);
}
