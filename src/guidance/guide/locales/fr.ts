/**
 * French framing for template guides (see ../locales.ts for the contract). "Vous".
 * Written with plain spaces before ; : and inside « »; polish() turns them into the
 * non-breaking spaces French typography wants, so the sources stay readable.
 */
import type { Framing } from '../locales.ts';

const ROUTES: Record<string, string> = {
  apple: 'Apple',
  google: 'Google Play',
  amazon: 'Amazon',
  roku: 'Roku',
  carrier: 'un opérateur mobile',
  bundle: 'un partenaire d’offre groupée',
  paypal: 'PayPal',
  other: 'une autre entreprise',
};

const PROOF = 'c’est votre preuve si un prélèvement apparaît encore';

export const fr: Framing = {
  intl: 'fr',
  polish: (text) => text.replace(/ ([;:!?»])/g, '\u00a0$1').replace(/« /g, '«\u00a0'),
  tier: {
    effortless: 'sans effort',
    easy: 'facile',
    moderate: 'modérée',
    hard: 'difficile',
    very_hard: 'très difficile',
    trap: 'piège',
  },
  axis: {
    path: 'la recherche du chemin de résiliation',
    channel: 'le canal de résiliation imposé',
    retention: 'les offres pour vous retenir',
    timing: 'les délais et la durée d’engagement',
    verification: 'la preuve de votre identité',
    cost: 'les frais et les remboursements',
  },
  route: (r, name) => (r === 'direct' ? `${name} directement` : (ROUTES[r] ?? r)),
  units: {
    Y: ['an', 'ans'],
    M: ['mois', 'mois'],
    W: ['semaine', 'semaines'],
    D: ['jour', 'jours'],
    H: ['heure', 'heures'],
    MIN: ['minute', 'minutes'],
  },
  neutral: {
    rating: (name, tier, score, axis, low) =>
      `La résiliation de ${name} est jugée « ${tier} » (${score} sur 10)` +
      (axis
        ? low
          ? ` ; le peu de friction concerne surtout ${axis}.`
          : ` ; la principale difficulté concerne ${axis}.`
        : '.'),
    billers: (list) => `La facturation peut passer par ${list} ; résiliez auprès de celui qui vous facture.`,
    commitment: (d) => `L’offre habituelle comporte un engagement minimum de ${d}.`,
    notice: (d) => `Un préavis de ${d} s’applique.`,
    cutoff: (d) => `La résiliation doit arriver au moins ${d} avant le prochain prélèvement ou la prochaine livraison.`,
    retention: {
      none: 'Aucune offre de fidélisation ne vous retient : une seule confirmation suffit.',
      one_optional: 'Une offre ou un questionnaire facultatif peut précéder la confirmation ; vous pouvez l’ignorer.',
      several:
        'Plusieurs écrans d’offres, de pause ou de questionnaire précèdent la confirmation ; continuez à choisir la résiliation.',
      mandatory_agent:
        'Un conseiller présente des offres avant d’accepter la résiliation ; dites clairement que vous souhaitez résilier.',
      deceptive:
        'Certains choix aboutissent à une pause ou à une formule réduite au lieu d’une résiliation ; vérifiez que le dernier écran confirme bien la résiliation.',
    },
    pause: 'Une pause est proposée ; mettre en pause ne met pas fin à l’abonnement.',
    noExit:
      'Aucun moyen de résilier qui fonctionne n’est documenté ; contester le prélèvement auprès de votre banque peut être la seule issue.',
    confirmation: {
      email: 'Une confirmation est envoyée par e-mail.',
      on_screen: 'La confirmation s’affiche uniquement à l’écran.',
      letter: 'La confirmation est envoyée par courrier.',
      none: 'Aucune confirmation n’est envoyée.',
    },
    access: {
      until_period_end: 'L’accès reste actif jusqu’à la fin de la période payée.',
      immediate: 'L’accès prend fin dès la résiliation.',
    },
    traps: (n, serious) =>
      n === 1
        ? `Un piège est signalé ci-dessous${serious ? ', et il est sérieux.' : '.'}`
        : `${n} pièges sont signalés ci-dessous${serious ? `, dont ${serious === 1 ? 'un' : serious} sérieux.` : '.'}`,
  },
  reassuring: {
    open: (name, tier, label, score) => {
      if (tier === 'effortless' || tier === 'easy')
        return `Bonne nouvelle : la résiliation de ${name} est jugée « ${label} » (${score} sur 10), cela ne devrait prendre que quelques minutes.`;
      if (tier === 'moderate')
        return `La résiliation de ${name} est jugée « ${label} » (${score} sur 10) : quelques étapes de plus que d’habitude, toutes faisables.`;
      if (tier === 'trap')
        return `La résiliation de ${name} compte parmi les plus difficiles (${score} sur 10). Elle reste possible : avancez étape par étape et gardez une trace de tout.`;
      return `La résiliation de ${name} est jugée « ${label} » (${score} sur 10). Cela tient à la procédure, pas à vous ; étape par étape, on y arrive.`;
    },
    focus: (axis) => `Le point qui demande le plus d’attention : ${axis}.`,
    expect: 'Résilier un abonnement est tout à fait normal ; voici à quoi vous attendre.',
    billers: (list) =>
      `Vérifiez d’abord qui vous facture : le paiement peut passer par ${list}, et c’est auprès de lui que vous résiliez.`,
    retention: {
      none: 'Personne n’essaiera de vous retenir : une confirmation, et c’est terminé.',
      one_optional:
        'Vous verrez peut-être une offre ou un court questionnaire ; vous pouvez tout à fait passer et continuer.',
      several:
        'Vous verrez sans doute quelques écrans d’offres, de pause ou de questionnaire. C’est normal : continuez simplement à choisir la résiliation.',
      mandatory_agent:
        'On vous proposera sans doute d’abord une formule moins chère. C’est la routine ; un « Je souhaite résilier, merci » aimable et ferme suffit.',
      deceptive:
        'Prenez votre temps à chaque écran : certains boutons mettent en pause ou réduisent la formule au lieu de résilier. Ce n’est terminé que lorsque le dernier écran confirme la résiliation.',
    },
    pause:
      'Si une pause vous est proposée, rappelez-vous que ce n’est pas une résiliation ; vous pouvez simplement la refuser.',
    noExit:
      'Si les étapes ne suffisent pas, vous n’avez rien fait de travers : aucune issue fiable n’est documentée, et contester le prélèvement auprès de votre banque est une démarche légitime.',
    access: {
      until_period_end: 'Vous gardez l’accès jusqu’à la fin de la période déjà payée.',
      immediate: 'L’accès s’arrête dès la résiliation ; terminez d’abord ce dont vous avez besoin.',
    },
    traps: (n) =>
      n === 1
        ? 'Avant de commencer, jetez un œil au piège ci-dessous ; le connaître à l’avance facilite les choses.'
        : `Avant de commencer, jetez un œil aux ${n} pièges ci-dessous ; les connaître à l’avance facilite les choses.`,
    keep: {
      email: `Une fois terminé, conservez l’e-mail de confirmation : ${PROOF}.`,
      on_screen: `Une fois terminé, faites une capture de l’écran de confirmation et gardez-la : ${PROOF}.`,
      letter: `Une fois terminé, conservez le courrier de confirmation : ${PROOF}.`,
      none: `Aucune confirmation n’est envoyée : faites une capture du dernier écran et notez la date, ${PROOF}.`,
      unknown: `Une fois terminé, conservez toute confirmation reçue (e-mail, capture d’écran ou reçu) : ${PROOF}.`,
    },
  },
  terse: (tier, score, axis, checkBiller, noExit) => {
    const parts = [`${tier.charAt(0).toUpperCase()}${tier.slice(1)} (${score}/10)`];
    if (axis) parts.push(`obstacle : ${axis}`);
    if (checkBiller) parts.push('résiliez auprès de qui vous facture');
    if (noExit) parts.push('sinon contestez le prélèvement');
    return `${parts.join(' ; ')}.`;
  },
};
