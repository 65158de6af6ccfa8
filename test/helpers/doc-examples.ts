/**
 * Runs the HTTP examples of a Markdown document, in order, against a live service, and checks
 * each answer against the one the document shows — so a walkthrough cannot drift from the
 * service it describes.
 *
 * The document's fenced ```http blocks alternate: a request (`METHOD /path`, header lines, a
 * blank line, the body), then the answer (`HTTP/1.1 200 OK`, header lines, a blank line, the
 * body). A request block whose info string is `http poll` is sent again until its answer
 * matches. In both, `{name}` is a value: in a request it is replaced by the value of that
 * name (from an earlier answer, from the test, or from a resolver the test gives, e.g. the
 * one-time code a person reads out); in an answer it matches anything and records it under that
 * name, or, once known, must equal it. `…` in an answer matches anything. An answer's JSON body
 * matches when every member it shows is in the real one (arrays: each element shown matches a
 * different real element, in any order); headers shown must be there with those values.
 */
import assert from 'node:assert/strict';

export interface HttpExample {
  request: { method: string; path: string; headers: [string, string][]; body: string; poll: boolean };
  response: { status: number; headers: [string, string][]; body: string };
  /** line of the request block in the document, for messages */
  line: number;
}

export function parseExamples(markdown: string): HttpExample[] {
  const blocks: { info: string; text: string; line: number }[] = [];
  const re = /^```(http[^\n]*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    blocks.push({
      info: m[1]!.trim(),
      text: m[2]!.replace(/\n$/, ''),
      line: markdown.slice(0, m.index).split('\n').length,
    });
  }
  const out: HttpExample[] = [];
  for (let i = 0; i < blocks.length; i += 2) {
    const req = blocks[i]!;
    const res = blocks[i + 1];
    assert.ok(res && /^HTTP\/1\.1 \d{3}/.test(res.text), `an answer follows the request at line ${req.line}`);
    const [reqHead, reqBody] = split(req.text);
    const [start, ...reqHeaders] = reqHead.split('\n');
    const [method, path] = start!.split(' ');
    const [resHead, resBody] = split(res.text);
    const [status, ...resHeaders] = resHead.split('\n');
    out.push({
      request: {
        method: method!,
        path: path!,
        headers: reqHeaders.filter(Boolean).map(header),
        body: reqBody,
        poll: req.info === 'http poll',
      },
      response: {
        status: Number(status!.split(' ')[1]),
        headers: resHeaders.filter(Boolean).map(header),
        body: resBody,
      },
      line: req.line,
    });
  }
  return out;
}

const split = (text: string): [string, string] => {
  const cut = text.indexOf('\n\n');
  return cut < 0 ? [text, ''] : [text.slice(0, cut), text.slice(cut + 2)];
};
const header = (line: string): [string, string] => {
  const i = line.indexOf(':');
  return [line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim()];
};

export type Vars = Record<string, string>;

/** `{name}` → its value; an unknown name asks `resolve`, and fails without one. */
async function fill(text: string, vars: Vars, resolve: Record<string, () => Promise<string>>): Promise<string> {
  for (const name of new Set([...text.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!))) {
    if (vars[name] === undefined && resolve[name]) vars[name] = await resolve[name]();
    assert.ok(vars[name] !== undefined, `no value for {${name}}`);
  }
  return text.replace(/\{([a-z_]+)\}/g, (_m, name: string) => vars[name]!);
}

/** Does the real string fit the shown one ({name} and … in it)? Returns the captures, or null. */
function matchString(shown: string, real: string, vars: Vars): Vars | null {
  const names: string[] = [];
  let pattern = '';
  for (const part of shown.split(/(\{[a-z_]+\}|…)/)) {
    if (part === '…') pattern += '[\\s\\S]*?';
    else if (/^\{[a-z_]+\}$/.test(part)) {
      const name = part.slice(1, -1);
      if (vars[name] !== undefined) pattern += escapeRe(vars[name]);
      else {
        names.push(name);
        pattern += '([\\s\\S]*?)';
      }
    } else pattern += escapeRe(part);
  }
  const m = new RegExp(`^${pattern}$`).exec(real);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, m[i + 1]!]));
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Does `real` contain what `shown` shows? Returns the captures, or null. */
export function matchJson(shown: unknown, real: unknown, vars: Vars): Vars | null {
  if (typeof shown === 'string') return typeof real === 'string' ? matchString(shown, real, vars) : null;
  if (Array.isArray(shown)) {
    if (!Array.isArray(real)) return null;
    let got: Vars = {};
    const used = new Set<number>();
    for (const s of shown) {
      const i = real.findIndex((r, k) => !used.has(k) && matchJson(s, r, { ...vars, ...got }) !== null);
      if (i < 0) return null;
      used.add(i);
      got = { ...got, ...matchJson(s, real[i], { ...vars, ...got }) };
    }
    return got;
  }
  if (shown !== null && typeof shown === 'object') {
    if (real === null || typeof real !== 'object' || Array.isArray(real)) return null;
    let got: Vars = {};
    for (const [k, v] of Object.entries(shown)) {
      if (!(k in real)) return null;
      const m = matchJson(v, (real as Record<string, unknown>)[k], { ...vars, ...got });
      if (!m) return null;
      got = { ...got, ...m };
    }
    return got;
  }
  return shown === real ? {} : null;
}

export interface RunOptions {
  origin: string;
  vars: Vars;
  resolve?: Record<string, () => Promise<string>>;
  pollMs?: number;
  pollTimeoutMs?: number;
}

/** Sends every example in order; throws at the first answer that does not fit. */
export async function runExamples(examples: HttpExample[], o: RunOptions): Promise<void> {
  const resolve = o.resolve ?? {};
  for (const ex of examples) {
    const deadline = Date.now() + (o.pollTimeoutMs ?? 30_000);
    for (;;) {
      const headers = new Headers();
      for (const [k, v] of ex.request.headers) headers.set(k, await fill(v, o.vars, resolve));
      const body = ex.request.body ? await fill(ex.request.body, o.vars, resolve) : undefined;
      const res = await fetch(o.origin + (await fill(ex.request.path, o.vars, resolve)), {
        method: ex.request.method,
        headers,
        body,
        redirect: 'manual',
      });
      const text = await res.text();
      const problem = check(ex, res, text, o.vars);
      if (problem === null) break;
      if (!ex.request.poll || Date.now() > deadline) {
        assert.fail(
          `example at line ${ex.line} (${ex.request.method} ${ex.request.path}): ${problem}\n${text.slice(0, 2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, o.pollMs ?? 200));
    }
  }
}

/** null when the answer fits (and records its captures), else what is wrong. */
function check(ex: HttpExample, res: Response, text: string, vars: Vars): string | null {
  if (res.status !== ex.response.status) return `status ${res.status}, the document shows ${ex.response.status}`;
  let got: Vars = {};
  for (const [k, v] of ex.response.headers) {
    const real = res.headers.get(k);
    const m = real === null ? null : matchString(v, real, { ...vars, ...got });
    if (!m) return `header ${k}: ${real}`;
    got = { ...got, ...m };
  }
  if (ex.response.body) {
    const m = matchJson(JSON.parse(ex.response.body), JSON.parse(text), { ...vars, ...got });
    if (!m) return 'the body does not fit the one shown';
    got = { ...got, ...m };
  }
  Object.assign(vars, got);
  return null;
}
