// What the composition root (start.ts) needs of A2A 1.0: the bridge over the runtime's 0.3
// handler (D-86), and the notification body for push configurations stored over 1.0 (D-104).
import type { AgentCard as Card03 } from '@a2a-js/sdk';
import type { A2ARequestHandler as Handler03 } from '@a2a-js/sdk/server';
import type { NotificationBodies } from '../../push/deliver.ts';
import type { AdmitOptions } from '../send-admission.ts';
import type { TaskListPage, TaskListQuery } from '../../store/task-list.ts';
import { V1Bridge } from './bridge.ts';
import { cardV1 } from './card.ts';
import { notificationBodyV1, PUSH_VERSION_V1 } from './push.ts';

export const NOTIFICATION_BODIES: NotificationBodies = { [PUSH_VERSION_V1]: notificationBodyV1 };

/** The 1.0 bridge: `card` is the served 0.3 card, shown as 1.0's (card.ts). */
export function v1Bridge(
  handler: Handler03,
  card: Card03,
  gate: AdmitOptions & { onRequest: (method: string) => void },
  listTasks: (query: TaskListQuery) => Promise<TaskListPage>,
): V1Bridge {
  return new V1Bridge({ handler, card: () => cardV1(card), admit: gate, onRequest: gate.onRequest, listTasks });
}
