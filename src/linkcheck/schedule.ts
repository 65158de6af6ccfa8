/** When every catalog link is re-verified unless LINK_CHECK_SCHEDULE says otherwise: Mondays at 04:00 UTC. */
export const WEEKLY_CRON = '0 4 * * 1';
