/**
 * The scan form: shows the chosen provider's app-password help and the custom-server
 * fields only when they apply, and turns the fields into a `scan` message. Outlook /
 * Microsoft 365 takes no address and no password here: the person signs in with Microsoft
 * (a page of its own), and the scan uses that sign-in (docs/microsoft.md).
 */
import type { ClientMessageInput } from '../../../channel/protocol.ts';
import { foldersText } from '../../shared/words.ts';
import { byId } from '../shared/dom.ts';
import type { ProviderHelp } from './advice.ts';

const form = () => byId<HTMLFormElement>('scan-form');
const value = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id).value.trim();
const checked = (id: string) => byId<HTMLInputElement>(id).checked;

export function provider(): string {
  return form().querySelector<HTMLInputElement>('input[name="provider"]:checked')?.value ?? 'gmail';
}

export function providerHelp(): ProviderHelp {
  const li = document.querySelector<HTMLElement>(`.help-list li[data-provider="${provider()}"]`);
  const text = li?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  return { name: li?.dataset.name ?? 'Your provider', url: li?.dataset.helpUrl ?? '', text };
}

const MICROSOFT = 'outlook';
/** the address of the Microsoft sign-in, from GET /auth/microsoft/session; null when signed out */
let microsoftEmail: string | null = null;

const PROMISE = {
  password:
    'Your password is kept only in our server’s memory, for an hour at most and 10 minutes once you leave, then wiped; it is never stored or logged.',
  microsoft:
    'Your Microsoft sign-in is kept only in our server’s memory, for an hour at most, then forgotten; it is never stored or logged. Signing out forgets it at once.',
};

function showProvider(): void {
  const chosen = provider();
  const microsoft = chosen === MICROSOFT;
  byId('oauth-slot').hidden = !microsoft;
  byId('app-password').hidden = microsoft;
  byId('credentials').hidden = microsoft;
  byId<HTMLInputElement>('email').required = !microsoft;
  byId<HTMLInputElement>('password').required = !microsoft;
  byId('password-promise').lastChild!.textContent = microsoft ? PROMISE.microsoft : PROMISE.password;
  const signedIn = document.getElementById('ms-signed-in');
  if (signedIn) {
    signedIn.hidden = !microsoftEmail;
    byId('ms-signed-out').hidden = !!microsoftEmail;
    byId('ms-email').textContent = microsoftEmail ?? '';
  }
  // Nothing to scan with until Microsoft has said who is signed in.
  byId<HTMLButtonElement>('scan-button').disabled = microsoft && !microsoftEmail;
  for (const li of document.querySelectorAll<HTMLElement>('.help-list li')) li.hidden = li.dataset.provider !== chosen;
  const custom = chosen === 'custom';
  byId('custom-server').hidden = !custom;
  byId<HTMLInputElement>('imap-host').required = custom;
  byId<HTMLInputElement>('imap-port').required = custom;
  byId('password').previousElementSibling!.textContent = custom ? 'Password' : 'App password';
}

export function initForm(): void {
  for (const r of form().querySelectorAll<HTMLInputElement>('input[name="provider"]'))
    r.addEventListener('change', showProvider);
  // Keep the port in step with the TLS mode unless the person typed their own.
  const pairs: [string, string, Record<string, string>][] = [
    ['imap-tls', 'imap-port', { implicit: '993', starttls: '143' }],
    ['smtp-tls', 'smtp-port', { implicit: '465', starttls: '587' }],
  ];
  for (const [tlsId, portId, ports] of pairs) {
    byId<HTMLSelectElement>(tlsId).addEventListener('change', (ev) => {
      const port = byId<HTMLInputElement>(portId);
      if (Object.values(ports).includes(port.value))
        port.value = ports[(ev.target as HTMLSelectElement).value] ?? port.value;
    });
  }
  const folders = () => {
    byId('folders-note').textContent = foldersText(checked('junk'), checked('trash'));
  };
  for (const id of ['junk', 'trash']) byId(id).addEventListener('change', folders);
  folders();
  byId<HTMLButtonElement>('scan-button').disabled = false;
  showProvider();
  void loadMicrosoftSignIn();
}

/** Back from Microsoft's sign-in (or signed in earlier): choose Outlook and show the address. */
async function loadMicrosoftSignIn(): Promise<void> {
  if (!document.getElementById('ms-signed-in')) return; // not set up on this server
  try {
    const res = await fetch('/auth/microsoft/session', { credentials: 'same-origin' });
    const s = (await res.json()) as { signed_in: boolean; email?: string };
    microsoftEmail = s.signed_in && s.email ? s.email : null;
  } catch {
    microsoftEmail = null;
  }
  if (microsoftEmail) {
    const radio = form().querySelector<HTMLInputElement>(`input[name="provider"][value="${MICROSOFT}"]`);
    if (radio) radio.checked = true;
  }
  showProvider();
}

export function emailValue(): string | null {
  if (provider() === MICROSOFT) return microsoftEmail;
  const input = byId<HTMLInputElement>('email');
  return input.value.trim() && input.checkValidity() ? input.value.trim() : null;
}

type ScanInput = Extract<ClientMessageInput, { type: 'scan' }>;
type TlsInput = NonNullable<ScanInput['tls']>;

/** The `scan` message for the current fields (docs/websocket.md). */
export function scanMessage(previous: { list_key: string; at: string }[]): ScanInput {
  const p = provider();
  const msg: ScanInput =
    p === MICROSOFT
      ? { type: 'scan', provider: p }
      : { type: 'scan', provider: p, email: value('email'), password: byId<HTMLInputElement>('password').value };
  if (p === 'custom') {
    msg.host = value('imap-host');
    msg.port = Number(value('imap-port'));
    msg.tls = value('imap-tls') as TlsInput;
    if (value('smtp-host'))
      msg.smtp = { host: value('smtp-host'), port: Number(value('smtp-port')), tls: value('smtp-tls') as TlsInput };
  }
  if (value('since')) msg.since = value('since');
  // The default folders (All Mail, or Inbox and Archive), plus what the person ticked.
  const extra = ['junk', 'trash'].filter(checked);
  if (extra.length) msg.mailboxes = ['default', ...extra];
  if (previous.length) msg.previous_unsubscribes = previous;
  return msg;
}

export function setScanning(on: boolean): void {
  byId<HTMLButtonElement>('scan-button').disabled = on;
  byId('cancel-button').hidden = !on;
}
