// A titled part of the run view that the reader can fold (a <details>), with an optional count.
import type { ReactNode } from 'react';

export function Section({
  title,
  count,
  children,
  testId,
  defaultOpen = true,
  onToggle,
}: {
  title: string;
  count?: number;
  children: ReactNode;
  testId?: string;
  defaultOpen?: boolean;
  /** Told when the reader opens or closes the section (to fetch only what is shown). */
  onToggle?: (open: boolean) => void;
}) {
  return (
    <details className="section" open={defaultOpen} data-testid={testId} onToggle={(e) => onToggle?.(e.currentTarget.open)}>
      <summary className="section__title">
        {title}
        {count !== undefined ? <span className="section__count">{count}</span> : null}
      </summary>
      <div className="section__body">{children}</div>
    </details>
  );
}
