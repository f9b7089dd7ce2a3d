// The single polite live region. Re-keyed per message so a repeated phrase is re-read.
import { useAnnouncer } from '../state/announcer.ts';

export function Announcer() {
  const message = useAnnouncer((s) => s.message);
  const nonce = useAnnouncer((s) => s.nonce);
  return (
    <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="announcer">
      <span key={nonce}>{message}</span>
    </div>
  );
}
