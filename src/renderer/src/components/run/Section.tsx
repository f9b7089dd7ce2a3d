// A titled part of the run view that the reader can fold (a <details>), with an optional count.
import type { ReactNode } from 'react';

export function Section({
  title,
  count,
  children,
  testId,
  defaultOpen = true,
  open,
  onToggle,
}: {
  title: string;
  count?: number;
  children: ReactNode;
  testId?: string;
  defaultOpen?: boolean;
  /** Opened (or closed) by its owner, e.g. to show something asked for elsewhere. */
  open?: boolean;
  /** Told when the reader opens or closes the section (to fetch only what is shown). */
  onToggle?: (open: boolean) => void;
}) {
  return (
    <details className="section" open={open ?? defaultOpen} data-testid={testId} onToggle={(e) => onToggle?.(e.currentTarget.open)}>
      <summary className="section__title">
        {title}
        {count !== undefined ? <span className="section__count">{count}</span> : null}
      </summary>
      <div className="section__body">{children}</div>
    </details>
  );
}
