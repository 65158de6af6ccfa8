/**
 * A Date header → milliseconds, exactly as `new Date(value).getTime()` reads it, without V8's
 * general date parser for the one shape nearly all mail uses (RFC 5322 §3.3 date-time as
 * written by every mainstream MTA): "Fri, 13 Nov 2026 08:12:33 +0000", day of week optional.
 * The scan reads one per message, and the general parser was a fifth of the per-message
 * parse (bench/scan).
 *
 * The fast path accepts only values whose reading is unambiguous; anything else — obsolete
 * zones (GMT, EST), comments, two-digit years, seconds of 60, days past 28 that may or may not
 * exist — goes to `new Date`, whose quirks (it rolls 31 Feb over into March) stay the answer.
 * date.test.ts holds the two to the same result on generated and mutated values.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Milliseconds since the epoch, or NaN for a value that is not a date. */
export function dateMs(value: string): number {
  const fast = fastDateMs(value);
  return fast === null ? new Date(value).getTime() : fast;
}

/** The fast path alone: null when the value is not in its one shape (then ask `new Date`). */
export function fastDateMs(s: string): number | null {
  let i = 0;
  // [day-of-week ", "]
  if (s.length > 4 && s.charCodeAt(3) === 0x2c) {
    if (!DAYS.includes(s.slice(0, 3)) || s.charCodeAt(4) !== 0x20) return null;
    i = 5;
  }
  // day: one or two digits, 1–28
  const d1 = digit(s, i);
  if (d1 < 0) return null;
  let day = d1;
  i++;
  const d2 = digit(s, i);
  if (d2 >= 0) {
    day = day * 10 + d2;
    i++;
  }
  if (day < 1 || day > 28 || s.charCodeAt(i) !== 0x20) return null;
  const month = MONTHS.indexOf(s.slice(i + 1, i + 4));
  if (month < 0 || s.charCodeAt(i + 4) !== 0x20) return null;
  i += 5;
  const year = digits(s, i, 4);
  if (year < 1970 || s.charCodeAt(i + 4) !== 0x20) return null;
  i += 5;
  const hour = digits(s, i, 2);
  const minute = digits(s, i + 3, 2);
  const second = digits(s, i + 6, 2);
  if (s.charCodeAt(i + 2) !== 0x3a || s.charCodeAt(i + 5) !== 0x3a || s.charCodeAt(i + 8) !== 0x20) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  i += 9;
  // zone: ("+" / "-") 4DIGIT, and nothing after it
  const sign = s.charCodeAt(i);
  const zh = digits(s, i + 1, 2);
  const zm = digits(s, i + 3, 2);
  if ((sign !== 0x2b && sign !== 0x2d) || s.length !== i + 5 || zh < 0 || zh > 23 || zm < 0 || zm > 59) return null;
  const offset = (sign === 0x2d ? -1 : 1) * (zh * 60 + zm) * 60_000;
  return Date.UTC(year, month, day, hour, minute, second) - offset;
}

function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 0x30;
  return c >= 0 && c <= 9 ? c : -1;
}

/** n decimal digits at i as a number, or -1. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const d = digit(s, i + k);
    if (d < 0) return -1;
    v = v * 10 + d;
  }
  return v;
}
