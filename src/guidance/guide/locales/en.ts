/** English framing for template guides (see ../locales.ts for the contract). */
import type { Framing } from '../locales.ts';

const ROUTES: Record<string, string> = {
  apple: 'Apple',
  google: 'Google Play',
  amazon: 'Amazon',
  roku: 'Roku',
  carrier: 'a phone carrier',
  bundle: 'a bundle partner',
  paypal: 'PayPal',
  other: 'another company',
};

export const en: Framing = {
  intl: 'en',
  tier: {
    effortless: 'effortless',
    easy: 'easy',
    moderate: 'moderate',
    hard: 'hard',
    very_hard: 'very hard',
    trap: 'a trap',
  },
  axis: {
    path: 'finding the way to cancel',
    channel: 'the channel you must cancel through',
    retention: 'offers to keep you',
    timing: 'deadlines and contract terms',
    verification: 'proving who you are',
    cost: 'fees and refunds',
  },
  route: (r, name) => (r === 'direct' ? `${name} itself` : (ROUTES[r] ?? r)),
  units: {
    Y: ['year', 'years'],
    M: ['month', 'months'],
    W: ['week', 'weeks'],
    D: ['day', 'days'],
    H: ['hour', 'hours'],
    MIN: ['minute', 'minutes'],
  },
  neutral: {
    rating: (name, tier, score, axis, low) =>
      `Cancelling ${name} is rated ${tier} (${score} out of 10)` +
      (axis ? (low ? `; what little friction there is comes from ${axis}.` : `; the main hurdle is ${axis}.`) : '.'),
    billers: (list) => `Billing can run through ${list}; cancel with whoever bills you.`,
    commitment: (d) => `The usual plan has a minimum term of ${d}.`,
    notice: (d) => `A notice period of ${d} applies.`,
    cutoff: (d) => `The cancellation must arrive at least ${d} before the next charge or delivery.`,
    retention: {
      none: 'No save offers stand in the way; one confirmation ends it.',
      one_optional: 'Expect one optional offer or survey before the confirmation; it can be skipped.',
      several: 'Several offer, pause or survey screens come before the confirmation; keep choosing to cancel.',
      mandatory_agent:
        'An agent presents offers before accepting the cancellation; state clearly that you want to cancel.',
      deceptive:
        'Some choices in the flow end in a pause or downgrade instead of a cancellation; check that the last screen says cancelled.',
    },
    pause: 'A pause is offered; pausing does not end the subscription.',
    noExit:
      'No working way to cancel is documented; disputing the charge with your bank or card issuer may be the only way out.',
    confirmation: {
      email: 'A confirmation is sent by email.',
      on_screen: 'The confirmation is shown on screen only.',
      letter: 'The confirmation is sent by letter.',
      none: 'No confirmation is sent.',
    },
    access: {
      until_period_end: 'Access continues until the end of the paid period.',
      immediate: 'Access ends as soon as you cancel.',
    },
    traps: (n, serious) =>
      (n === 1 ? 'One pitfall is listed below' : `${n} pitfalls are listed below`) +
      (serious ? (n === 1 ? ', and it is serious.' : `, ${serious === 1 ? 'one' : serious} of them serious.`) : '.'),
  },
  reassuring: {
    open: (name, tier, label, score) => {
      if (tier === 'effortless' || tier === 'easy')
        return `Good news: cancelling ${name} is rated ${label} (${score} out of 10), so it should only take a few minutes.`;
      if (tier === 'moderate')
        return `Cancelling ${name} is rated ${label} (${score} out of 10): a few more steps than usual, all of them manageable.`;
      if (tier === 'trap')
        return `Cancelling ${name} is known to be one of the hardest (${score} out of 10). It is still doable: go step by step and keep a record of everything.`;
      return `Cancelling ${name} is rated ${label} (${score} out of 10). That says more about the process than about you; taken one step at a time, it works.`;
    },
    focus: (axis) => `The part that needs the most care is ${axis}.`,
    expect: 'Cancelling is a perfectly normal thing to do, and here is what to expect.',
    billers: (list) =>
      `First, check who bills you: payment can run through ${list}, and you cancel with whichever one it is.`,
    retention: {
      none: 'There are no offers to talk you out of it; one confirmation and you are done.',
      one_optional: 'You may see one offer or a short survey; it is fine to skip it and carry on.',
      several:
        'You will probably see a few offer, pause or survey screens. That is normal; just keep choosing to cancel.',
      mandatory_agent:
        'Someone will likely suggest a cheaper option first. That is routine for them; a friendly, firm "I would like to cancel, please" is all you need.',
      deceptive:
        'Take your time on each screen: some buttons pause or downgrade instead of cancelling. You are done only when the final screen says cancelled.',
    },
    pause: 'If a pause is offered, remember it is not a cancellation; you can simply pass on it.',
    noExit:
      'If the steps do not work, you have done nothing wrong: no working way out is documented, and disputing the charge with your bank is a legitimate option.',
    access: {
      until_period_end: 'You keep access until the end of the period you have paid for.',
      immediate: 'Access stops as soon as you cancel, so finish anything you need first.',
    },
    traps: (n) =>
      n === 1
        ? 'Before you start, take a quick look at the pitfall below; knowing it in advance makes things easier.'
        : `Before you start, take a quick look at the ${n} pitfalls below; knowing them in advance makes things easier.`,
    keep: {
      email: 'When you are done, keep the confirmation email: it is your proof if a charge ever appears.',
      on_screen:
        'When you are done, take a screenshot of the confirmation screen and keep it: it is your proof if a charge ever appears.',
      letter: 'When you are done, keep the confirmation letter: it is your proof if a charge ever appears.',
      none: 'No confirmation is sent, so take a screenshot of the last screen and note the date: it is your proof if a charge ever appears.',
      unknown:
        'When you are done, keep whatever confirmation you get (an email, a screenshot or a receipt): it is your proof if a charge ever appears.',
    },
  },
  terse: (tier, score, axis, checkBiller, noExit) => {
    const cap = tier.charAt(0).toUpperCase() + tier.slice(1);
    const parts = [`${cap} (${score}/10)`];
    if (axis) parts.push(`hurdle: ${axis}`);
    if (checkBiller) parts.push('cancel with whoever bills you');
    if (noExit) parts.push('else dispute the charge');
    return `${parts.join('; ')}.`;
  },
};
