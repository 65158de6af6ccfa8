/**
 * A small well-formedness check for the XML we serve (Atom feed, sitemap): one root,
 * balanced and properly nested tags, quoted attributes, and only the five predefined or
 * numeric entities. Returns the elements found, so tests can count them.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlElement[];
}

const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

export function parseXml(xml: string): XmlElement {
  const src = xml.replace(/^\uFEFF?<\?xml[^?]*\?>\s*/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|<!--[\s\S]*?-->/g;
  let last = 0;
  for (let m = tag.exec(src); m; m = tag.exec(src)) {
    const text = src.slice(last, m.index);
    last = tag.lastIndex;
    if (text.includes('<')) throw new Error(`stray "<" before offset ${m.index}`);
    if (ENTITY.test(text)) throw new Error(`unescaped "&" before offset ${m.index}`);
    if (stack.length) stack.at(-1)!.text += text;
    else if (text.trim()) throw new Error('text outside the root element');
    if (m[0].startsWith('<!--')) continue;
    const [, closing, name, rawAttrs, selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of rawAttrs!.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      const v = a[2] ?? a[3] ?? '';
      if (ENTITY.test(v)) throw new Error(`unescaped "&" in attribute ${a[1]} of <${name}>`);
      attrs[a[1]!] = v;
    }
    const el: XmlElement = { name: name!, attrs, text: '', children: [] };
    if (stack.length) stack.at(-1)!.children.push(el);
    else if (root) throw new Error('more than one root element');
    else root = el;
    if (!selfClosing) stack.push(el);
  }
  if (src.slice(last).trim()) throw new Error('text after the root element');
  if (stack.length) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

export const childrenNamed = (el: XmlElement, name: string) => el.children.filter((c) => c.name === name);
