/**
 * What an article may say optout does. Every capability an article can name is listed with
 * the route that serves it; the blog test asks the running app whether that route exists, so
 * an article cannot keep describing a capability the build no longer serves. The second list
 * names things optout does not do, each with the route that would serve it if it did (none
 * does): an article that says optout does one of them fails the same check.
 */

export interface Capability {
  id: string;
  /** "METHOD /path", as the app registers it */
  route: string;
  /** how an article names it */
  names: RegExp;
  /** words the same sentence must also contain (e.g. that it depends on the site's setup) */
  requires?: RegExp;
}

export const CAPABILITIES: readonly Capability[] = [
  { id: 'inbox-scan', route: 'GET /ws', names: /\b(scans?|scanning|reads? (only )?(message )?headers)\b/i },
  { id: 'one-click-unsubscribe', route: 'GET /ws', names: /\bone-click\b/i },
  { id: 'email-unsubscribe', route: 'GET /ws', names: /\bunsubscribe emails?\b/i },
  { id: 'preview', route: 'GET /ws', names: /\b(preview|dry run)\b/i },
  { id: 'archive-backlog', route: 'GET /ws', names: /\barchives?\b/i },
  { id: 'verification', route: 'GET /ws', names: /\b(still writing|is marked|are marked)\b/i },
  {
    id: 'microsoft-sign-in',
    route: 'GET /auth/microsoft/start',
    names: /\b(sign(s|ing)? in with Microsoft|Microsoft sign-in)\b/i,
    requires: /\b(set (that |it )?up|configured)\b/i,
  },
  { id: 'cancellation-guides', route: 'GET /services', names: /\bcancellation guides?\b/i },
  { id: 'privacy-statement', route: 'GET /privacy', names: /\bwhat (optout|it) keeps\b/i },
  { id: 'public-api', route: 'GET /docs', names: /\b(public )?API\b/ },
];

export const NOT_SERVED: readonly Capability[] = [
  { id: 'digest', route: 'GET /digest', names: /\b(digests?|roll-?ups?)\b/i },
  { id: 'paid-plan', route: 'GET /pricing', names: /\b(free tier|paid (plan|tier)|premium|pricing|trial)\b/i },
  {
    id: 'continuous-filtering',
    route: 'GET /rules',
    names:
      /\b(keeps? watching|watch(es)? your (mail|inbox)|ongoing filter\w*|auto-?filter\w*|filters? (your|future) mail)\b/i,
  },
  { id: 'browser-extension', route: 'GET /extension', names: /\b(browser|chrome) extension|add-on\b/i },
  { id: 'mobile-app', route: 'GET /app', names: /\b(mobile|iphone|android) app\b/i },
  { id: 'resubscribe', route: 'GET /resubscribe', names: /\bre-?subscribes?\b/i },
];

/** Words that promise what is not built. */
export const FUTURE = /\b(soon|coming|upcoming|planned|roadmap|in the future|will be able)\b/i;
