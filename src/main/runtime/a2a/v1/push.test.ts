import { describe, expect, it } from 'vitest';
import { A2AError } from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotFoundError } from 'a2a-sdk-1/errors';
import { configToV03, configToV1, notificationBodyV1, pushErrorV1 } from './push.ts';

describe('A2A 1.0 push configurations and notifications (D-104)', () => {
  it('takes a 1.0 configuration as 0.3 input, leaving unset fields to the 0.3 defaults, and shows it back', () => {
    const v1 = { tenant: '', id: '', taskId: 't1', url: 'https://h/x', token: '', authentication: { scheme: 'Bearer', credentials: 'c' } };
    expect(configToV03(v1)).toEqual({ url: 'https://h/x', authentication: { schemes: ['Bearer'], credentials: 'c' } });
    const stored = { taskId: 't1', pushNotificationConfig: { id: 't1', url: 'https://h/x', authentication: { schemes: ['Bearer'], credentials: 'c' } } };
    expect(configToV1(stored)).toEqual({ ...v1, id: 't1' });
    expect(configToV1({ taskId: 't1', pushNotificationConfig: { url: 'https://h/x' } }).authentication).toBeUndefined();
  });

  it("sends a 1.0 configuration the stored task as 1.0's StreamResponse", () => {
    const task = {
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: { state: 'input-required', timestamp: '2026-01-01T00:00:00.000Z' },
      artifacts: [],
      history: [],
    };
    const body = JSON.parse(notificationBodyV1(JSON.stringify(task)));
    expect(body).toEqual({ task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T00:00:00.000Z' } } });
  });

  it("names 1.0's fields in a refusal, and keeps other errors' meaning", () => {
    const refused = pushErrorV1(new A2AError(-32602, 'Invalid params: params.pushNotificationConfig.authentication.schemes names no scheme', {}));
    expect(refused).toBeInstanceOf(RequestMalformedError);
    expect((refused as Error).message).toBe('Invalid params: params.authentication.scheme names no scheme');
    expect(pushErrorV1(A2AError.taskNotFound('t1'))).toBeInstanceOf(TaskNotFoundError);
  });
});
