/**
 * The scopes an agent credential carries (docs/agents.md). A registration starts with the
 * pre-claim set; completing the claim swaps in the post-claim set on the same credential.
 * Protected surfaces name what they need with requireScope (bearer.ts).
 */
export const SCOPES = ['catalog.read', 'inbox.read', 'inbox.write', 'audit.read'] as const;
export type Scope = (typeof SCOPES)[number];

export const PRE_CLAIM_SCOPES: readonly Scope[] = Object.freeze(['catalog.read', 'inbox.read']);
export const POST_CLAIM_SCOPES: readonly Scope[] = Object.freeze([
  'catalog.read',
  'inbox.read',
  'inbox.write',
  'audit.read',
]);

export const scopesFor = (claimed: boolean): readonly Scope[] => (claimed ? POST_CLAIM_SCOPES : PRE_CLAIM_SCOPES);
