/**
 * The words receipt reading keys on, in English, German, French, Spanish and Italian (the
 * catalog's locales and the languages its services bill in). All matched on lower-cased text.
 * docs/audit.md says how each list is used.
 */
import { u } from './word-edge.ts';

/** The message is about money changing hands (subject or text). */
export const BILLING = u(
  /\b(?:receipts?|invoices?|payments?|paid|charged?|billed|billing|renew(?:al|ed|s)?|order confirmation|purchase|rechnung|quittung|zahlung\w*|beleg|abbuchung|facture|reçu|paiement|factura|recibo|pago|cobro|fattura|ricevuta|pagamento)\b/,
);

/** The money is for something that recurs. */
export const RECURRING = u(
  /\b(?:subscri(?:be|bed|ption)s?|membership|member(?:ship)? fee|plan|renew(?:al|ed|s|ing)?|auto-?renew\w*|recurring|billing (?:period|cycle|date)|next (?:billing|payment|charge)|abonnement|abo|mitgliedschaft|verlängerung|adhésion|renouvellement|suscripci[oó]n|membres[ií]a|renovaci[oó]n|abbonamento|rinnovo)\b/,
);

/** The subject says a charge happened (a receipt, an invoice, a payment confirmation). */
export const PAST_SUBJECT = u(
  /\b(?:receipt|invoice|payment (?:received|confirmation|confirmed|successful)|thanks? (?:you )?for your (?:payment|purchase|order)|you(?:'ve| have)? paid|has been (?:renewed|charged)|was renewed|renewed|charged|rechnung|quittung|zahlungsbestätigung|zahlungseingang|beleg|facture|reçu|confirmation de paiement|factura|recibo|fattura|ricevuta)\b/,
);

/** The text says a charge happened. */
export const PAST_TEXT = u(
  /\b(?:we(?:'ve| have)? (?:charged|billed)|you(?:'ve| have)? (?:paid|been charged|been billed)|you were (?:charged|billed)|has been (?:charged|billed|renewed|paid)|was (?:charged|billed|renewed)|payment (?:received|confirmation|confirmed|successful|processed)|thank(?:s| you) for your (?:payment|purchase|order)|amount (?:paid|charged)|total paid|wurde (?:abgebucht|belastet)|haben (?:wir )?(?:abgebucht|belastet)|a été (?:prélevé|débité)|hemos cobrado|se ha cobrado)\b/,
);

/** A charge still to come (a renewal notice, a trial ending). */
export const UPCOMING = u(
  /\b(?:(?:will|['’]ll) (?:be (?:charged|billed)|renew|automatically renew)|(?:auto-?)?renews? (?:on|at|for|automatically)|renewal (?:date|price|amount|notice|reminder)|upcoming (?:payment|charge|renewal)|next (?:payment|charge|billing(?: date)?|bill|invoice)|is about to renew|wird (?:\S+ ){0,4}(?:abgebucht|verlängert)|verlängert sich|sera (?:prélevé|débité|renouvelé)|se renouvelle|se renovará|será cobrado|verrà addebitato|si rinnoverà)\b/,
);

export const UPCOMING_SUBJECT = u(
  /\b(?:renew(?:s|al)?|reminder|upcoming|will be charged|erinnerung|verlängerung|rappel|renouvellement|recordatorio|renovaci[oó]n|promemoria|rinnovo)\b/,
);

/** Not a charge: a failed payment, a refund, a cancellation (subject). */
export const FAILED = u(
  /\b(?:payment (?:failed|declined|unsuccessful|problem|issue)|problem with your payment|(?:could ?n[o']t|unable to|can't|cannot) (?:process|charge|complete|collect)(?: your)? payment|card (?:was )?declined|declined|zahlung fehlgeschlagen|paiement (?:refusé|échoué|a échoué)|pago (?:rechazado|fallido))\b/,
);
export const REFUND = u(
  /\b(?:refund(?:ed)?|rückerstattung|erstattung|gutschrift|remboursement|remboursé|reembolso|rimborso)\b/,
);
export const CANCELLED = u(
  /\b(?:cancel(?:l)?ed|cancel(?:l)?ation (?:confirmed|confirmation)|has ended|membership ended|gekündigt|kündigungsbestätigung|résilié|résiliation|cancelad[oa]|annullat[oa])\b/,
);

/** Labels of the amount that was charged (the last one before an amount decides). */
export const TOTAL_LABEL = u(
  /\b(?:grand total|order total|invoice total|total(?: (?:charged|paid|billed|amount|due|price|today))?|amount(?: (?:charged|paid|billed|due|debited))?|you paid|paid|charged|billed|debited|payment(?: amount)?(?: of)?|gesamtbetrag|gesamtsumme|gesamt|summe|rechnungsbetrag|betrag|bezahlt|abgebucht|montant(?: total| payé| débité| facturé)?|payé|débité|prélevé|importe(?: total)?|total pagado|cobrado|cargado|totale|importo)\b/g,
);
/** Labels of a plan's price. */
export const PRICE_LABEL = u(/\b(?:price|plan|preis|prix|precio|prezzo|tarif)\b/g);
/** Labels of parts of a total, and conversions: never the charge. */
export const PART_LABEL = u(
  /\b(?:subtotal|sub-total|zwischensumme|sous-total|tax(?:es)?|vat|gst|hst|pst|mwst|ust|tva|iva|shipping|delivery fee|service fee|tip|discount|credit(?!\s*card)|(?:account|credit|remaining) balance|gift card|promo(?:tion)?(?: code)?|coupon|you saved|savings|approx(?:\.|imately)?|equivalent|exchange rate|estimated|est\.|rabatt|remise|descuento|sconto|guthaben)\b|≈|~/g,
);
/** "incl. tax", "inkl. MwSt.": says what a total holds; not a label of its own. */
export const INCLUSIVE = u(
  /\b(?:incl(?:uding|\.|usive of)?|inkl\.?|inklusive|ttc|excl(?:uding|\.)?|zzgl\.?|plus|with)\s+(?:all\s+|applicable\s+|\d+\s?%\s+)?(?:tax(?:es)?|vat|mwst\.?|ust\.?|gst|tva|iva)\b/g,
);

/** Promotional words anywhere in the clause before an amount: it is an offer, not a charge. */
export const PROMO_CLAUSE = u(
  /\b(?:save|saving|savings|discount|starting at|starts at|as low as|reg\.?|regular(?:ly)?|originally|instead of|compared to|worth|earn|win|reward|bonus|cash ?back|gift|coupon|promo|deal|offer|sale|upgrade|switch|try|join|unlock|introductory|intro|special|limited|first (?:month|year|\d+ months)|sparen|spare|angebot|statt|économisez|offre|au lieu de|ahorra|oferta|en lugar de|risparmia|offerta)\b|%/,
);
/** Words right before an amount that make it an offer ("from $6.99", "now only €4.99"). */
export const PROMO_BEFORE = u(
  /\b(?:from|now|only|just|get|over|under|up to|was|were|ab|nur|dès|à partir de|seulement|desde|solo|da)\s*:?\s*$/,
);
/** Words right after an amount that make it an offer ("$5 off", "€10 credit"). */
export const PROMO_AFTER = u(
  /^\s*(?:off|discount|savings?|back|credit|or more|and up|value|rabatt|günstiger|de réduction|de remise|de descuento|di sconto|\+(?!\s*(?:applicable\s+)?(?:tax|taxes|vat|mwst|gst|tva|iva)\b)|%)/,
);
