/**
 * German framing for template guides (see ../locales.ts for the contract). Formal "Sie".
 * Axis names are quoted as section names ("der Bereich „…“") so the sentences need no
 * case or gender agreement with them; durations appear where the nominative fits.
 */
import type { Framing } from '../locales.ts';

const ROUTES: Record<string, string> = {
  apple: 'Apple',
  google: 'Google Play',
  amazon: 'Amazon',
  roku: 'Roku',
  carrier: 'einen Mobilfunkanbieter',
  bundle: 'den Anbieter eines Bundles',
  paypal: 'PayPal',
  other: 'ein anderes Unternehmen',
};

const PROOF = 'Ihr Nachweis, falls doch noch eine Abbuchung kommt';

export const de: Framing = {
  intl: 'de',
  tier: {
    effortless: 'mühelos',
    easy: 'leicht',
    moderate: 'mittelschwer',
    hard: 'schwer',
    very_hard: 'sehr schwer',
    trap: 'Falle',
  },
  axis: {
    path: 'Weg zur Kündigung',
    channel: 'Kündigungsart',
    retention: 'Halteangebote',
    timing: 'Fristen und Laufzeit',
    verification: 'Identitätsnachweis',
    cost: 'Gebühren und Erstattungen',
  },
  route: (r, name) => (r === 'direct' ? `${name} selbst` : (ROUTES[r] ?? r)),
  units: {
    Y: ['Jahr', 'Jahre'],
    M: ['Monat', 'Monate'],
    W: ['Woche', 'Wochen'],
    D: ['Tag', 'Tage'],
    H: ['Stunde', 'Stunden'],
    MIN: ['Minute', 'Minuten'],
  },
  neutral: {
    rating: (name, tier, score, axis, low) =>
      `Die Kündigung von ${name} wird als „${tier}“ eingestuft (${score} von 10)` +
      (axis
        ? low
          ? `; der geringe Aufwand betrifft vor allem den Bereich „${axis}“.`
          : `; am meisten Aufwand macht der Bereich „${axis}“.`
        : '.'),
    billers: (list) => `Abgerechnet werden kann über ${list}; kündigen Sie dort, wo Sie bezahlen.`,
    commitment: (d) => `Mindestlaufzeit des üblichen Tarifs: ${d}.`,
    notice: (d) => `Kündigungsfrist: ${d}.`,
    cutoff: (d) => `Die Kündigung muss spätestens ${d} vor der nächsten Abbuchung oder Lieferung eingehen.`,
    retention: {
      none: 'Halteangebote gibt es keine; eine Bestätigung genügt.',
      one_optional:
        'Vor der Bestätigung erscheint ein optionales Angebot oder eine Umfrage; beides lässt sich überspringen.',
      several:
        'Vor der Bestätigung folgen mehrere Seiten mit Angeboten, Pausen oder Umfragen; wählen Sie jedes Mal weiter die Kündigung.',
      mandatory_agent:
        'Ein Mitarbeiter stellt Angebote vor, bevor er die Kündigung annimmt; sagen Sie klar, dass Sie kündigen möchten.',
      deceptive:
        'Manche Optionen führen zu einer Pause oder einem günstigeren Tarif statt zur Kündigung; prüfen Sie, dass die letzte Seite die Kündigung bestätigt.',
    },
    pause: 'Eine Pause wird angeboten; eine Pause beendet das Abo nicht.',
    noExit:
      'Ein funktionierender Kündigungsweg ist nicht dokumentiert; womöglich bleibt nur, die Abbuchung über Bank oder Kartenanbieter zurückzufordern.',
    confirmation: {
      email: 'Die Bestätigung kommt per E-Mail.',
      on_screen: 'Die Bestätigung erscheint nur auf dem Bildschirm.',
      letter: 'Die Bestätigung kommt per Brief.',
      none: 'Eine Bestätigung wird nicht verschickt.',
    },
    access: {
      until_period_end: 'Der Zugang bleibt bis zum Ende des bezahlten Zeitraums bestehen.',
      immediate: 'Der Zugang endet sofort mit der Kündigung.',
    },
    traps: (n, serious) =>
      n === 1
        ? `Unten ist ein Fallstrick aufgeführt${serious ? ', und er ist schwerwiegend.' : '.'}`
        : `Unten sind ${n} Fallstricke aufgeführt${serious ? `, ${serious === 1 ? 'einer' : serious} davon schwerwiegend.` : '.'}`,
  },
  reassuring: {
    open: (name, tier, label, score) => {
      if (tier === 'effortless' || tier === 'easy')
        return `Gute Nachricht: Die Kündigung von ${name} gilt als „${label}“ (${score} von 10) und sollte in wenigen Minuten erledigt sein.`;
      if (tier === 'moderate')
        return `Die Kündigung von ${name} gilt als „${label}“ (${score} von 10): ein paar Schritte mehr als üblich, aber alle gut machbar.`;
      if (tier === 'trap')
        return `Die Kündigung von ${name} gehört zu den schwierigsten (${score} von 10). Sie ist trotzdem machbar: Gehen Sie Schritt für Schritt vor und dokumentieren Sie alles.`;
      return `Die Kündigung von ${name} gilt als „${label}“ (${score} von 10). Das liegt am Verfahren, nicht an Ihnen; Schritt für Schritt klappt es.`;
    },
    focus: (axis) => `Am meisten Sorgfalt braucht der Bereich „${axis}“.`,
    expect: 'Ein Abo zu kündigen ist völlig normal – hier erfahren Sie, was Sie erwartet.',
    billers: (list) =>
      `Prüfen Sie zuerst, wer abrechnet: Bezahlt werden kann über ${list}, und gekündigt wird dort, wo Sie bezahlen.`,
    retention: {
      none: 'Niemand versucht, Sie umzustimmen: eine Bestätigung, und Sie sind fertig.',
      one_optional: 'Vielleicht sehen Sie ein Angebot oder eine kurze Umfrage; beides können Sie einfach überspringen.',
      several:
        'Wahrscheinlich erscheinen einige Seiten mit Angeboten, Pausen oder Umfragen. Das ist normal – wählen Sie einfach weiter die Kündigung.',
      mandatory_agent:
        'Man wird Ihnen vermutlich zuerst einen günstigeren Tarif anbieten. Das ist dort Routine; ein freundliches, klares „Ich möchte bitte kündigen“ genügt.',
      deceptive:
        'Lassen Sie sich auf jeder Seite Zeit: Manche Schaltflächen pausieren das Abo oder stufen es herab, statt zu kündigen. Fertig sind Sie erst, wenn die letzte Seite die Kündigung bestätigt.',
    },
    pause:
      'Wird Ihnen eine Pause angeboten, denken Sie daran: Das ist keine Kündigung, Sie können sie einfach ablehnen.',
    noExit:
      'Falls die Schritte nicht zum Ziel führen, haben Sie nichts falsch gemacht: Ein funktionierender Weg ist nicht dokumentiert, und die Abbuchung über Ihre Bank zurückzufordern, ist ein legitimer Schritt.',
    access: {
      until_period_end: 'Sie behalten den Zugang bis zum Ende des bezahlten Zeitraums.',
      immediate: 'Der Zugang endet sofort mit der Kündigung; erledigen Sie vorher also alles, was Sie noch brauchen.',
    },
    traps: (n) =>
      n === 1
        ? 'Werfen Sie vor dem Start kurz einen Blick auf den Fallstrick unten; wer ihn kennt, hat es leichter.'
        : `Werfen Sie vor dem Start kurz einen Blick auf die ${n} Fallstricke unten; wer sie kennt, hat es leichter.`,
    keep: {
      email: `Bewahren Sie danach die Bestätigungs-E-Mail auf: Sie ist ${PROOF}.`,
      on_screen: `Machen Sie danach einen Screenshot der Bestätigungsseite und bewahren Sie ihn auf: Er ist ${PROOF}.`,
      letter: `Bewahren Sie danach das Bestätigungsschreiben auf: Es ist ${PROOF}.`,
      none: `Eine Bestätigung wird nicht verschickt; machen Sie deshalb einen Screenshot der letzten Seite und notieren Sie das Datum – das ist ${PROOF}.`,
      unknown: `Bewahren Sie danach jede Bestätigung auf, die Sie erhalten (E-Mail, Screenshot oder Quittung): Sie ist ${PROOF}.`,
    },
  },
  terse: (tier, score, axis, checkBiller, noExit) => {
    const parts = [`${tier.charAt(0).toUpperCase()}${tier.slice(1)} (${score}/10)`];
    if (axis) parts.push(`Hürde: ${axis}`);
    if (checkBiller) parts.push('dort kündigen, wo Sie bezahlen');
    if (noExit) parts.push('sonst Abbuchung zurückfordern');
    return `${parts.join('; ')}.`;
  },
};
