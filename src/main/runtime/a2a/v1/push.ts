// Push notifications on A2A 1.0 (D-104): the four configuration methods and SendMessage's
// configuration reach the same checks and service as 0.3's (a2a/push-rpc.ts, through the
// runtime's 0.3 handler), in 1.0 shapes. 1.0's TaskPushNotificationConfig is flat (id, taskId,
// url, token, authentication {scheme, credentials}); 0.3 nests it under pushNotificationConfig
// with authentication {schemes[], credentials}. A configuration stored over 1.0 is notified
// with 1.0's StreamResponse holding the task (spec 1.0, "Push Notification Payload").
import type { Task as Task03 } from '@a2a-js/sdk';
import { A2AError as A2AError03 } from '@a2a-js/sdk/server';
import { StreamResponse } from 'a2a-sdk-1';
import { RequestMalformedError } from 'a2a-sdk-1/errors';
import { JSONRPC } from '../request-meta.ts';
import { taskToV1 } from './convert.ts';
export { configToV03, configToV1 } from './convert.ts';
import { toV1Error } from './errors.ts';

/** The version a configuration stored over the 1.0 bindings records (PushConfig.version). */
export const PUSH_VERSION_V1 = '1.0';

/** The body of a notification to a configuration stored over 1.0: the stored (0.3) task as
 * 1.0's StreamResponse `{"task": …}` in ProtoJSON. */
export function notificationBodyV1(taskJson: string): string {
  const task = taskToV1(JSON.parse(taskJson) as Task03);
  return JSON.stringify(StreamResponse.toJSON({ payload: { $case: 'task', value: task } }));
}

/** The field names of 0.3's push checks (push-rpc.ts) as the 1.0 request names them. */
function fieldsAsV1(message: string): string {
  return message
    .replaceAll('params.configuration.pushNotificationConfig', 'params.configuration.taskPushNotificationConfig')
    .replaceAll('params.pushNotificationConfig.', 'params.')
    .replaceAll('params.pushNotificationConfigId', 'params.id')
    .replaceAll('authentication.schemes', 'authentication.scheme');
}

/** A push call's error as 1.0's, its message naming 1.0's fields. */
export function pushErrorV1(err: unknown): unknown {
  if (err instanceof A2AError03 && err.code === JSONRPC.INVALID_PARAMS) return toV1Error(new A2AError03(err.code, fieldsAsV1(err.message), err.data));
  return toV1Error(err);
}

/** The ids a 1.0 get or delete names, both required. */
export function requiredIds(req: { taskId: string; id: string }): void {
  if (!req.taskId) throw new RequestMalformedError({ message: 'Invalid params: params.taskId (the task id) is required and must be a non-empty string' });
  if (!req.id) throw new RequestMalformedError({ message: 'Invalid params: params.id (the configuration id) is required and must be a non-empty string' });
}
