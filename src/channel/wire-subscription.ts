/**
 * A subscription as the /ws protocol sends it (docs/websocket.md "A subscription"): the scan's
 * own shape (src/mailbox/types.ts) plus what the channel adds for an earlier unsubscribe. The
 * type below fails to compile when the schema and the scan's shape drift apart.
 */
import { z } from 'zod';
import { ONE_CLICK_WITHHELD } from '../mailbox/one-click-evidence.ts';
import type { Subscription as ScannedSubscription } from '../mailbox/types.ts';

const AuthVerdict = z.enum(['pass', 'fail', 'none', 'unknown']);
const Iso = z.string();

export const Verification = z.enum(['ineffective', 'verified_quiet', 'pending']);
export type Verification = z.infer<typeof Verification>;

export const Subscription = z.strictObject({
  id: z.string(),
  list_key: z.string(),
  sender: z.strictObject({ name: z.string(), address: z.string(), domain: z.string() }),
  list_id: z.string().nullable(),
  count: z.int().nonnegative(),
  first_seen: Iso.nullable(),
  last_seen: Iso.nullable(),
  per_month: z.number().nonnegative(),
  read_rate: z.number().min(0).max(1),
  methods: z.strictObject({
    one_click: z.string().nullable(),
    http: z.array(z.string()),
    mailto: z.array(
      z.strictObject({ uri: z.string(), to: z.string(), subject: z.string().nullable(), body: z.string().nullable() }),
    ),
  }),
  one_click_withheld: z.enum(ONE_CLICK_WITHHELD).nullable(),
  sample_subjects: z.array(z.string()),
  auth: z.strictObject({ dkim: AuthVerdict, spf: AuthVerdict, dmarc: AuthVerdict }),
  mailboxes: z.array(z.string()),
  junk_only: z.boolean(),
  /** `difficulty`: the friction score the tier derives from, shown with it as one badge (protocol 2.4) */
  service: z
    .strictObject({ slug: z.string(), name: z.string(), tier: z.string(), difficulty: z.number().min(0).max(10) })
    .nullable(),
  /** with an earlier unsubscription from this list: its messages dated after it (protocol 2.3) */
  since_unsubscribe: z.int().nonnegative().optional(),
  unsubscribed_at: Iso.optional(),
  verification: Verification.optional(),
});
export type Subscription = z.infer<typeof Subscription>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** Compiles only while the wire shape is exactly the scan's shape plus the two channel fields. */
export type WireMatchesScan = Assert<Same<Omit<Subscription, 'unsubscribed_at' | 'verification'>, ScannedSubscription>>;
