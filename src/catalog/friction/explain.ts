/**
 * Turns rubric factor codes into one plain sentence each. Explanations are generated
 * from codes (never free text) so they stay consistent and can be translated.
 */
const FIXED: Record<string, string> = {
  'path:deep_link': 'A direct link opens the cancel screen.',
  'path:deep_link_few_clicks': 'A direct link opens the cancel screen; two clicks or fewer to confirm.',
  'path:clicks_unknown': 'The number of steps to the cancel control is not documented.',
  'path:no_self_serve': 'There is no self-service cancel control to find.',
  'path:hidden': 'The cancel option is hidden away from the account settings.',
  'path:web_only_cancel': 'You can subscribe in the app but cancel only on the web.',
  'path:several_billing_routes': 'You must first work out who bills you (the service, an app store or a partner).',
  'path:loop': 'The flow can loop back to the start instead of finishing.',
  'channel:no_confirmation': 'No confirmation is sent.',
  'channel:on_screen_confirmation_only': 'The confirmation is shown on screen only, not sent by email.',
  'channel:confirmation_unknown': 'Whether a written confirmation is sent is not documented.',
  'channel:limited_hours': 'The cancel channel is open only at limited hours.',
  'retention:unknown': 'Whether save offers appear is not documented; assumed one optional offer.',
  'retention:none': 'No save offers: one confirmation ends it.',
  'retention:one_optional': 'One optional offer or survey beside an equally visible way to continue.',
  'retention:several': 'Several offer, pause or survey screens stand before the confirmation.',
  'retention:mandatory_agent': 'An agent pitches offers before the cancellation is accepted.',
  'retention:deceptive': 'The flow can end paused or downgraded instead of cancelled.',
  'retention:deceptive_completion': 'Choosing an offer can silently end the cancellation.',
  'retention:confirmshaming': 'Loaded wording or visual tricks steer you away from cancelling.',
  'retention:agent_script': 'Agents follow a retention script.',
  'retention:several_offer_screens': 'Two or more save screens are documented.',
  'retention:one_offer_screen': 'One save screen is documented.',
  'timing:unknown': 'Contract terms (minimum term, notice) are not documented.',
  'timing:month_to_month': 'Month to month; cancel any time.',
  'timing:short_cutoff': 'The cancellation must arrive a short time (up to two days) before renewal.',
  'timing:long_cutoff': 'The cancellation must arrive several days before the next charge or shipment.',
  'timing:access_ends_immediately': 'Access ends as soon as you cancel, which tempts you to wait.',
  'timing:trial_converts': 'A free trial turns into a paid plan unless cancelled in time.',
  'timing:notice_period': 'A notice period applies.',
  'timing:notice_30_days_plus': 'A notice period of 30 days or more applies.',
  'timing:annual_commitment': 'The usual plan is a one-year commitment.',
  'timing:fixed_term_renewal_with_notice': 'The term renews for another fixed term unless notice is given in time.',
  'timing:long_lock_in': 'A lock-in of two years or more with a long notice period.',
  'timing:minimum_term': 'A minimum term longer than one month applies.',
  'timing:no_reminder': 'No reminder is sent before renewal.',
  'timing:price_increase_on_renewal': 'The price rises on renewal.',
  'verification:unknown': 'What you must provide to cancel is not documented; assumed a signed-in account.',
  'verification:session': 'Being signed in is enough.',
  'verification:reauth': 'You must enter your password again.',
  'verification:otp': 'You must enter a one-time code.',
  'verification:holder_only': 'Only the account holder can cancel.',
  'verification:manager_only': 'Only the plan manager can cancel.',
  'verification:account_pin': 'You must give an account number or PIN.',
  'verification:security_questions': 'You must answer security questions.',
  'verification:settle_balance': 'Any balance must be settled first.',
  'verification:equipment_return': 'Equipment must be returned before the cancellation is accepted.',
  'verification:residency': 'The online route depends on where you live.',
  'verification:document_proof': 'Documentary proof is required.',
  'verification:signature': 'A signed form or letter is required.',
  'verification:several_requirements': 'Several separate requirements stack up.',
  'verification:region_gated': 'The easy route is available only in some regions.',
  'cost:unknown': 'Fees and refunds are not documented.',
  'cost:prorated_refund': 'Unused time is refunded pro rata.',
  'cost:refund_window':
    'A full refund is possible within a short window; otherwise access runs to the end of the period.',
  'cost:refund_none': 'No refund; access runs to the end of the paid period.',
  'cost:refund_case_by_case': 'Refunds are at the company’s discretion.',
  'cost:refund_unknown': 'The refund policy is not documented.',
  'cost:paid_time_lost': 'Access ends at once and the rest of the paid period is lost.',
  'cost:forfeits_prepaid_value': 'Prepaid value (credits, unused months) is forfeited.',
  'cost:fee_cancellation_fee': 'A cancellation fee applies.',
  'cost:fee_equipment_nonreturn': 'Equipment that is not returned is charged.',
  'cost:fee_etf': 'An early-termination fee applies.',
  'cost:fee_buyout': 'A buyout fee applies to leave before the term ends.',
  'cost:fee_device_balance': 'A remaining device balance becomes due.',
  'cost:fee_remaining_term': 'The rest of the contract is payable on early exit.',
  'cost:fee_revealed_at_cancel': 'A fee is revealed only during cancellation.',
};

const CHANNEL_WORDS: Record<string, string> = {
  web_self_serve: 'online in your account',
  app_self_serve: 'in the app',
  app_store: 'through the app store that bills you',
  partner: 'through the partner that bills you',
  chatbot: 'through a chatbot',
  chat_agent: 'in a chat with an agent',
  web_form: 'through a web form handled by staff',
  email: 'by email',
  phone: 'by phone',
  in_person: 'in person',
  postal_mail: 'by letter',
  certified_mail: 'by registered letter',
};

export function explainFactor(code: string): string {
  const fixed = FIXED[code];
  if (fixed) return fixed;
  let m = /^path:clicks_(\d+)$/.exec(code);
  if (m) return `About ${m[1]} clicks from signing in to the confirmation.`;
  m = /^channel:only_(.+)$/.exec(code);
  if (m) return `Cancelling is possible only ${words(m[1]!)}, with no alternative.`;
  m = /^channel:(.+)$/.exec(code);
  if (m) return `The easiest way to cancel is ${words(m[1]!)}.`;
  return code;
}

function words(joined: string): string {
  return joined
    .split('_or_')
    .map((t) => CHANNEL_WORDS[t] ?? t.replaceAll('_', ' '))
    .join(' or ');
}
