/**
 * A person's browser reduced to HTTP: fetch with a cookie jar (per host name, path-scoped,
 * Max-Age and Expires honoured, Secure cookies only over https), following redirects itself so
 * every hop is recorded. `signIn` and `approveDevice` fill in the identity provider's pages
 * (oidc-provider's development login and consent forms, and its device-code forms, see
 * oidc-idp.ts) the way a person would.
 */
import { parseSetCookie } from 'cookie';

interface Stored {
  value: string;
  path: string;
  expires: number;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: string;
}

export interface Hop {
  method: string;
  url: string;
  status: number;
  location?: string;
  setCookies: string[];
}

export interface Page {
  url: string;
  status: number;
  text: string;
  headers: Headers;
}

export interface GoInit {
  method?: string;
  form?: Record<string, string>;
  origin?: string;
  /** do not follow a redirect to this URL: return it as the page's `url` with status 0 */
  stopAt?: (url: string) => boolean;
}

export interface HttpBrowser {
  /** host name → cookie name → cookie */
  jar: Map<string, Map<string, Stored>>;
  hops: Hop[];
  /** the Cookie header this browser would send to `url` */
  cookieHeader(url: string): string;
  cookie(url: string, name: string): Stored | undefined;
  /** one request, no redirects followed */
  request(url: string, init?: { method?: string; form?: Record<string, string>; origin?: string }): Promise<Response>;
  /** request, then follow redirects (GET) until a page, or until a redirect to a URL `stopAt` accepts */
  go(url: string, init?: GoInit): Promise<Page>;
}

export function createHttpBrowser(): HttpBrowser {
  const jar = new Map<string, Map<string, Stored>>();
  const hops: Hop[] = [];

  function cookiesFor(url: URL): [string, Stored][] {
    const now = Date.now();
    const all = jar.get(url.hostname) ?? new Map<string, Stored>();
    return [...all].filter(
      ([, c]) =>
        c.expires > now &&
        (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)) &&
        (!c.secure || url.protocol === 'https:'),
    );
  }

  function store(url: URL, header: string): void {
    const c = parseSetCookie(header);
    if (!c.name) return;
    // RFC 6265 §4.1.2.5: a Secure cookie is only set over a secure channel
    if (c.secure && url.protocol !== 'https:') return;
    const all = jar.get(url.hostname) ?? new Map<string, Stored>();
    jar.set(url.hostname, all);
    const expires =
      c.maxAge !== undefined
        ? Date.now() + c.maxAge * 1000
        : c.expires
          ? c.expires.getTime()
          : Number.POSITIVE_INFINITY;
    if (expires <= Date.now()) all.delete(c.name);
    else
      all.set(c.name, {
        value: c.value ?? '',
        path: c.path ?? '/',
        expires,
        secure: !!c.secure,
        httpOnly: !!c.httpOnly,
        sameSite: typeof c.sameSite === 'string' ? c.sameSite : undefined,
      });
  }

  const cookieHeader = (url: string) =>
    cookiesFor(new URL(url))
      .map(([n, c]) => `${n}=${c.value}`)
      .join('; ');

  async function request(
    url: string,
    init: { method?: string; form?: Record<string, string>; origin?: string } = {},
  ): Promise<Response> {
    const method = init.method ?? (init.form ? 'POST' : 'GET');
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookies = cookieHeader(url);
    if (cookies) headers.cookie = cookies;
    if (init.origin) headers.origin = init.origin;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method,
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: 'manual',
    });
    const setCookies = res.headers.getSetCookie();
    for (const h of setCookies) store(new URL(url), h);
    hops.push({ method, url, status: res.status, location: res.headers.get('location') ?? undefined, setCookies });
    return res;
  }

  async function go(url: string, init: GoInit = {}): Promise<Page> {
    let res = await request(url, init);
    let at = url;
    for (let i = 0; res.status >= 300 && res.status < 400 && res.headers.get('location'); i++) {
      if (i > 20) throw new Error('too many redirects');
      await res.body?.cancel();
      at = new URL(res.headers.get('location')!, at).href;
      if (init.stopAt?.(at)) return { url: at, status: 0, text: '', headers: new Headers() };
      res = await request(at);
    }
    return { url: at, status: res.status, text: await res.text(), headers: res.headers };
  }

  return {
    jar,
    hops,
    cookieHeader,
    cookie: (url, name) => cookiesFor(new URL(url)).find(([n]) => n === name)?.[1],
    request,
    go,
  };
}

/** The action of the first form on an oidc-provider page whose hidden `prompt` is `prompt`. */
function formAction(page: Page, prompt: string): string | null {
  const m = new RegExp(`<form[^>]*action="([^"]+)"[^>]*>\\s*<input type="hidden" name="prompt" value="${prompt}"`).exec(
    page.text,
  );
  return m ? new URL(m[1]!.replaceAll('&amp;', '&'), page.url).href : null;
}

/**
 * Goes through the identity provider's sign-in from `startUrl` (optout's /auth/microsoft/start):
 * logs in as `login`, gives consent (or refuses it: `deny`), and follows every redirect back to
 * optout. Returns the final page.
 */
export async function signIn(
  browser: HttpBrowser,
  startUrl: string,
  login: string,
  opts: { deny?: boolean; stopAt?: (url: string) => boolean } = {},
): Promise<Page> {
  const { stopAt } = opts;
  let page = await browser.go(startUrl, { stopAt });
  for (let i = 0; i < 5; i++) {
    const loginAction = formAction(page, 'login');
    const consentAction = formAction(page, 'consent');
    const action = loginAction ?? consentAction;
    if (!action) return page;
    if (opts.deny) {
      // oidc-provider's "abort" link: the person cancels; the client gets access_denied
      page = await browser.go(`${action}/abort`, { stopAt });
      continue;
    }
    page = await browser.go(action, {
      form: loginAction ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' },
      stopAt,
    });
  }
  throw new Error(`sign-in did not finish; last page ${page.url}`);
}

/**
 * A person approving (or refusing) a device code on another device: opens the verification
 * URI, types the code, confirms, signs in and consents.
 */
export async function approveDevice(
  verificationUri: string,
  userCode: string,
  login: string,
  opts: { deny?: boolean } = {},
): Promise<Page> {
  const browser = createHttpBrowser();
  const input = await browser.go(verificationUri);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(input.text)?.[1];
  if (!xsrf) throw new Error(`no device form at ${verificationUri}`);
  const confirm = await browser.go(verificationUri, { form: { xsrf, user_code: userCode } });
  const xsrf2 = /name="xsrf" value="([^"]+)"/.exec(confirm.text)?.[1] ?? xsrf;
  const form: Record<string, string> = { xsrf: xsrf2, user_code: userCode };
  if (opts.deny) form.abort = 'yes';
  else form.confirm = 'yes';
  let page = await browser.go(verificationUri, { form });
  for (let i = 0; i < 5 && !opts.deny; i++) {
    const loginAction = formAction(page, 'login');
    const consentAction = formAction(page, 'consent');
    if (!loginAction && !consentAction) break;
    page = await browser.go(
      (loginAction ?? consentAction)!,
      loginAction ? { form: { prompt: 'login', login, password: 'any' } } : { form: { prompt: 'consent' } },
    );
  }
  return page;
}
