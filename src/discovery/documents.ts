/**
 * The text documents for agents — /auth.md and the agent skills — rendered once at start from
 * the templates in documents/ with this deployment's URLs and the agent settings, so the
 * numbers they state are the ones the service enforces. The skills index is built from the
 * rendered bytes: each digest is of exactly what the skill's URL serves.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { TOKEN_REVOKED } from '../agent/events.ts';
import { POST_CLAIM_SCOPES, PRE_CLAIM_SCOPES } from '../agent/scopes.ts';
import type { AgentSettings } from '../agent/settings.ts';
import type { McpServerEntry } from './mcp-registry.ts';

const DIR = join(import.meta.dirname, 'documents');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');
const TEMPLATES = {
  authMd: read('auth.md'),
  skills: ['agent-registration', 'cancellation-guides'].map((name) => read(`skills/${name}.md`)),
};

export interface DocumentUrls {
  baseUrl: string;
  apiUrl: string;
}

/** Fills `{name}` placeholders; an unknown one is a bug in a template, caught at start. */
function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{([a-z_]+)\}/g, (m, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`unknown placeholder ${m} in a discovery template`);
    return v;
  });
}

export interface Skill {
  name: string;
  description: string;
  /** absolute URL where the SKILL.md is served */
  url: string;
  /** path of that URL */
  path: string;
  body: Buffer;
  digest: string;
}

export interface AgentDocuments {
  authMd: string;
  skills: Skill[];
  skillsIndex: {
    $schema: string;
    skills: { name: string; type: 'skill-md'; description: string; url: string; digest: string }[];
  };
}

export const SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export function agentDocuments(
  urls: DocumentUrls,
  settings: AgentSettings,
  mcp: McpServerEntry | null,
): AgentDocuments {
  const l = settings.lifetimes;
  const vars = {
    base_url: urls.baseUrl,
    api_url: urls.apiUrl,
    pre_claim_scopes: PRE_CLAIM_SCOPES.join(' '),
    post_claim_scopes: POST_CLAIM_SCOPES.join(' '),
    pre_claim_json: JSON.stringify(PRE_CLAIM_SCOPES),
    post_claim_json: JSON.stringify(POST_CLAIM_SCOPES),
    registration_hours: String(l.registrationSeconds / 3600),
    link_minutes: String(l.claimLinkSeconds / 60),
    otp_minutes: String(l.otpSeconds / 60),
    access_token_minutes: String(l.accessTokenSeconds / 60),
    max_otp_failures: String(settings.maxOtpFailures),
    token_revoked: TOKEN_REVOKED,
  };
  const sources = TEMPLATES.skills.map((t) => fill(t, vars));
  if (mcp) sources.push(mcpSkill(urls.baseUrl, mcp));
  const skills = sources.map((text) => {
    // agentskills.io: YAML front matter with name and description; the index repeats both.
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
    if (!front) throw new Error('a skill without front matter');
    const meta = parseYaml(front[1]!) as { name: string; description: string };
    const path = `/.well-known/agent-skills/${meta.name}/SKILL.md`;
    const body = Buffer.from(text, 'utf8');
    return {
      name: meta.name,
      description: meta.description,
      url: urls.baseUrl + path,
      path,
      body,
      digest: `sha256:${createHash('sha256').update(body).digest('hex')}`,
    };
  });
  return {
    authMd: fill(TEMPLATES.authMd, vars),
    skills,
    skillsIndex: {
      $schema: SKILLS_SCHEMA,
      skills: skills.map((s) => ({
        name: s.name,
        type: 'skill-md' as const,
        description: s.description,
        url: s.url,
        digest: s.digest,
      })),
    },
  };
}

/** The MCP skill, written from the registry the server uses, so it names exactly its tools. */
function mcpSkill(baseUrl: string, mcp: McpServerEntry): string {
  const tools = mcp.tools
    .map((t) => `- \`${t.name}\` (${t.scopes.join(', ') || 'no scope'}): ${t.description}`)
    .join('\n');
  return [
    '---',
    'name: mcp-tools',
    `description: Call optout's MCP tools (${mcp.tools.map((t) => t.name).join(', ')}) at ${baseUrl}${mcp.path} with a Bearer credential from agentic registration.`,
    '---',
    '',
    `# optout over MCP`,
    '',
    `Endpoint: \`${baseUrl}${mcp.path}\` (Streamable HTTP). Send \`Authorization: Bearer <api_key>\`; get the`,
    `credential first as ${baseUrl}/auth.md describes. A tool that cannot do what you asked answers with`,
    'a result marked `isError` whose `structuredContent.error.code` says why; a tool that needs a',
    'post-claim scope answers `insufficient_scope` until a person has claimed the registration.',
    ...(mcp.tools.some((t) => t.name === 'scan_inbox')
      ? ['Mailbox passwords never pass through you: `scan_inbox` returns a `connect_url` for the person.']
      : []),
    '',
    '## Tools',
    '',
    tools,
    '',
  ].join('\n');
}
