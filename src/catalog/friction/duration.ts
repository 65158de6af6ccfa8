/** ISO 8601 durations (P1Y, P30D, PT48H) in approximate days, for rubric thresholds. */
export function durationDays(d: string | null): number | null {
  if (!d) return null;
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(d);
  if (!m) return null;
  const [, y, mo, w, day, h, min] = m.map((x) => Number(x ?? 0));
  return y! * 365 + mo! * 30 + w! * 7 + day! + h! / 24 + min! / 1440;
}
