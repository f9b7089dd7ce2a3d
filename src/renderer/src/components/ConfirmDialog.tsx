// A modal confirmation on the native <dialog>: focus moves in and back, Esc cancels, and
// the page behind is inert, all without hand-written focus trapping.
import { useEffect, useRef } from 'react';

export function ConfirmDialog({
  open,
  title,
  body,
  confirmLabel,
  danger = false,
  busy = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  body: string;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      cancelRef.current?.focus(); // the safe choice has focus first
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      data-testid="confirm-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title" className="dialog__title">
        {title}
      </h2>
      <p id="confirm-body" className="dialog__body">
        {body}
      </p>
      <div className="dialog__actions">
        <button ref={cancelRef} type="button" className="btn" onClick={onCancel} data-testid="confirm-cancel">
          Keep it
        </button>
        <button type="button" className={`btn ${danger ? 'btn--danger' : 'btn--primary'}`} onClick={onConfirm} disabled={busy} data-testid="confirm-accept">
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
