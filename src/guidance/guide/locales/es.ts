/** Spanish framing for template guides (see ../locales.ts for the contract). "Tú", as most consumer services write. */
import type { Framing } from '../locales.ts';

const ROUTES: Record<string, string> = {
  apple: 'Apple',
  google: 'Google Play',
  amazon: 'Amazon',
  roku: 'Roku',
  carrier: 'una operadora de telefonía',
  bundle: 'un paquete de otra empresa',
  paypal: 'PayPal',
  other: 'otra empresa',
};

const PROOF = 'es tu prueba si alguna vez aparece un cargo';

export const es: Framing = {
  intl: 'es',
  tier: {
    effortless: 'sin esfuerzo',
    easy: 'fácil',
    moderate: 'moderada',
    hard: 'difícil',
    very_hard: 'muy difícil',
    trap: 'una trampa',
  },
  axis: {
    path: 'encontrar el camino para darse de baja',
    channel: 'el canal obligatorio para la baja',
    retention: 'las ofertas para retenerte',
    timing: 'los plazos y la permanencia',
    verification: 'demostrar tu identidad',
    cost: 'las comisiones y los reembolsos',
  },
  route: (r, name) => (r === 'direct' ? `${name} directamente` : (ROUTES[r] ?? r)),
  units: {
    Y: ['año', 'años'],
    M: ['mes', 'meses'],
    W: ['semana', 'semanas'],
    D: ['día', 'días'],
    H: ['hora', 'horas'],
    MIN: ['minuto', 'minutos'],
  },
  neutral: {
    rating: (name, tier, score, axis, low) =>
      `La baja de ${name} se considera «${tier}» (${score} de 10)` +
      (axis
        ? low
          ? `; la poca fricción que hay está sobre todo en ${axis}.`
          : `; el principal obstáculo está en ${axis}.`
        : '.'),
    billers: (list) => `El cobro puede hacerse a través de ${list}; date de baja con quien te cobra.`,
    commitment: (d) => `El plan habitual tiene una permanencia mínima de ${d}.`,
    notice: (d) => `Se aplica un preaviso de ${d}.`,
    cutoff: (d) => `La baja debe llegar al menos ${d} antes del próximo cobro o envío.`,
    retention: {
      none: 'No hay ofertas de retención: basta con una confirmación.',
      one_optional: 'Antes de la confirmación puede aparecer una oferta o encuesta opcional; puedes saltártela.',
      several:
        'Antes de la confirmación aparecen varias pantallas de ofertas, pausas o encuestas; sigue eligiendo la baja.',
      mandatory_agent:
        'Un agente te presentará ofertas antes de aceptar la baja; di claramente que quieres darte de baja.',
      deceptive:
        'Algunas opciones terminan en una pausa o en un plan inferior en lugar de la baja; comprueba que la última pantalla confirme la baja.',
    },
    pause: 'Se ofrece una pausa; pausar no pone fin a la suscripción.',
    noExit:
      'No hay documentada ninguna vía de baja que funcione; reclamar el cargo a tu banco o al emisor de la tarjeta puede ser la única salida.',
    confirmation: {
      email: 'La confirmación llega por correo electrónico.',
      on_screen: 'La confirmación solo aparece en pantalla.',
      letter: 'La confirmación llega por carta.',
      none: 'No se envía ninguna confirmación.',
    },
    access: {
      until_period_end: 'El acceso se mantiene hasta el final del periodo pagado.',
      immediate: 'El acceso termina en cuanto te das de baja.',
    },
    traps: (n, serious) =>
      n === 1
        ? `Abajo se indica una trampa${serious ? ', y es grave.' : '.'}`
        : `Abajo se indican ${n} trampas${serious ? (serious === 1 ? ', una de ellas grave.' : `, ${serious} de ellas graves.`) : '.'}`,
  },
  reassuring: {
    open: (name, tier, label, score) => {
      if (tier === 'effortless' || tier === 'easy')
        return `Buenas noticias: la baja de ${name} se considera «${label}» (${score} de 10), así que debería llevarte solo unos minutos.`;
      if (tier === 'moderate')
        return `La baja de ${name} se considera «${label}» (${score} de 10): unos pasos más de lo habitual, todos asumibles.`;
      if (tier === 'trap')
        return `La baja de ${name} está entre las más difíciles (${score} de 10). Aun así se puede: ve paso a paso y guarda constancia de todo.`;
      return `La baja de ${name} se considera «${label}» (${score} de 10). Eso dice más del proceso que de ti; paso a paso, se consigue.`;
    },
    focus: (axis) => `Lo que requiere más atención es ${axis}.`,
    expect: 'Darse de baja es algo completamente normal; esto es lo que puedes esperar.',
    billers: (list) =>
      `Primero, comprueba quién te cobra: el pago puede hacerse a través de ${list}, y la baja se hace con quien te cobre.`,
    retention: {
      none: 'Nadie intentará convencerte de que te quedes: una confirmación y listo.',
      one_optional: 'Puede que veas una oferta o una encuesta breve; no pasa nada por saltártela y seguir.',
      several:
        'Seguramente verás algunas pantallas de ofertas, pausas o encuestas. Es normal: sigue eligiendo la baja.',
      mandatory_agent:
        'Probablemente te ofrezcan antes una opción más barata. Es lo habitual; basta con un «Quiero darme de baja, gracias» amable y firme.',
      deceptive:
        'Tómate tu tiempo en cada pantalla: algunos botones pausan o rebajan el plan en lugar de dar de baja. Solo habrás terminado cuando la última pantalla confirme la baja.',
    },
    pause: 'Si te ofrecen una pausa, recuerda que no es una baja; puedes rechazarla sin más.',
    noExit:
      'Si los pasos no funcionan, no has hecho nada mal: no hay documentada ninguna salida que funcione, y reclamar el cargo a tu banco es una opción legítima.',
    access: {
      until_period_end: 'Mantienes el acceso hasta el final del periodo que ya has pagado.',
      immediate: 'El acceso se corta en cuanto te das de baja, así que termina antes lo que necesites.',
    },
    traps: (n) =>
      n === 1
        ? 'Antes de empezar, echa un vistazo a la trampa de abajo; conocerla de antemano lo pone más fácil.'
        : `Antes de empezar, echa un vistazo a las ${n} trampas de abajo; conocerlas de antemano lo pone más fácil.`,
    keep: {
      email: `Cuando termines, guarda el correo de confirmación: ${PROOF}.`,
      on_screen: `Cuando termines, haz una captura de la pantalla de confirmación y guárdala: ${PROOF}.`,
      letter: `Cuando termines, guarda la carta de confirmación: ${PROOF}.`,
      none: `No se envía confirmación, así que haz una captura de la última pantalla y anota la fecha: ${PROOF}.`,
      unknown: `Cuando termines, guarda cualquier confirmación que recibas (un correo, una captura o un recibo): ${PROOF}.`,
    },
  },
  terse: (tier, score, axis, checkBiller, noExit) => {
    const parts = [`${tier.charAt(0).toUpperCase()}${tier.slice(1)} (${score}/10)`];
    if (axis) parts.push(`obstáculo: ${axis}`);
    if (checkBiller) parts.push('date de baja con quien te cobra');
    if (noExit) parts.push('si no, reclama el cargo');
    return `${parts.join('; ')}.`;
  },
};
