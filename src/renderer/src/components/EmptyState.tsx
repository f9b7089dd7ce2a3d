// Empty states say what the screen is for and what to do next.
import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon.tsx';

export function EmptyState({
  icon,
  title,
  children,
  action,
  testId,
}: {
  icon?: IconName;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="empty" data-testid={testId ?? 'empty-state'}>
      {icon ? (
        <div className="empty__icon">
          <Icon name={icon} size={32} />
        </div>
      ) : null}
      <h2 className="empty__title">{title}</h2>
      {children ? <div className="empty__body">{children}</div> : null}
      {action ? <div className="empty__action">{action}</div> : null}
    </div>
  );
}
