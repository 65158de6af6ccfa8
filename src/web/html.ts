/** HTML escaping and a tagged template that escapes every interpolation by default. */
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]!);

export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString() {
    return this.value;
  }
}

type Part = string | number | null | undefined | false | SafeHtml | Part[];
const render = (p: Part): string =>
  p === null || p === undefined || p === false
    ? ''
    : p instanceof SafeHtml
      ? p.value
      : Array.isArray(p)
        ? p.map(render).join('')
        : escapeHtml(String(p));

export function html(strings: TemplateStringsArray, ...parts: Part[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < parts.length ? render(parts[i]!) : ''), ''));
}

export function page(title: string, description: string, body: SafeHtml): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><meta name="description" content="${description}"><meta name="color-scheme" content="light dark"><link rel="stylesheet" href="/assets/site.css"></head><body>${body}</body></html>`}`;
}
