// A2A 1.0 ⇄ 0.3 shapes for the 1.0 bindings (D-86): the 1.x SDK's transports parse 1.0 JSON
// into its protobuf-shaped objects, the bridge hands the runtime's 0.3 handler 0.3 shapes, and
// its answers (tasks stored in the 0.3 shape, events) go back as 1.0. What 1.0 has no field for
// (0.3's `kind` and `final`) is dropped; what 0.3 has no field for is refused before it is
// lost (a DataPart whose value is not an object, checked by validateMessage).
import type { Artifact as Artifact03, Message as Message03, MessageSendParams, Part as Part03, Task as Task03, TaskState as State03 } from '@a2a-js/sdk';
import type { PushNotificationConfig as Config03, TaskPushNotificationConfig as TaskConfig03 } from '@a2a-js/sdk';
import type { TaskArtifactUpdateEvent as ArtifactEvent03, TaskStatusUpdateEvent as StatusEvent03 } from '@a2a-js/sdk';
import {
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from 'a2a-sdk-1';

const STATES: [TaskState, State03][] = [
  [TaskState.TASK_STATE_SUBMITTED, 'submitted'],
  [TaskState.TASK_STATE_WORKING, 'working'],
  [TaskState.TASK_STATE_COMPLETED, 'completed'],
  [TaskState.TASK_STATE_FAILED, 'failed'],
  [TaskState.TASK_STATE_CANCELED, 'canceled'],
  [TaskState.TASK_STATE_INPUT_REQUIRED, 'input-required'],
  [TaskState.TASK_STATE_REJECTED, 'rejected'],
  [TaskState.TASK_STATE_AUTH_REQUIRED, 'auth-required'],
];
const TO_V1 = new Map(STATES.map(([v1, v03]) => [v03, v1]));
const TO_V03 = new Map(STATES);

export function stateToV1(state: string): TaskState {
  return TO_V1.get(state as State03) ?? TaskState.TASK_STATE_UNSPECIFIED;
}

/** The 0.3 name of a 1.0 state; undefined for UNSPECIFIED (no filter). */
export function stateToV03(state: TaskState): State03 | undefined {
  return TO_V03.get(state);
}

function partToV03(p: Part): Part03 {
  const metadata = p.metadata ? { metadata: p.metadata } : {};
  const file = { ...(p.mediaType ? { mimeType: p.mediaType } : {}), ...(p.filename ? { name: p.filename } : {}) };
  const c = p.content;
  switch (c?.$case) {
    case 'text':
      return { kind: 'text', text: c.value, ...metadata };
    case 'data':
      return { kind: 'data', data: c.value as Record<string, unknown>, ...metadata };
    case 'raw':
      return { kind: 'file', file: { bytes: Buffer.from(c.value).toString('base64'), ...file }, ...metadata };
    case 'url':
      return { kind: 'file', file: { uri: c.value, ...file }, ...metadata };
    default:
      // A part with no content: validateMessage names it.
      return { kind: undefined as unknown as 'text', text: undefined as unknown as string, ...metadata };
  }
}

function partToV1(p: Part03): Part {
  const base = { metadata: p.metadata, filename: '', mediaType: '' };
  if (p.kind === 'text') return { ...base, content: { $case: 'text', value: p.text } };
  if (p.kind === 'data') return { ...base, content: { $case: 'data', value: p.data } };
  const f = p.file;
  const named = { ...base, filename: f.name ?? '', mediaType: f.mimeType ?? '' };
  if ('bytes' in f && typeof f.bytes === 'string') return { ...named, content: { $case: 'raw', value: Buffer.from(f.bytes, 'base64') } };
  return { ...named, content: { $case: 'url', value: (f as { uri: string }).uri } };
}

export function messageToV03(m: Message): Message03 {
  return {
    kind: 'message',
    messageId: m.messageId,
    role: m.role === Role.ROLE_AGENT ? 'agent' : m.role === Role.ROLE_USER ? 'user' : (undefined as unknown as 'user'),
    parts: m.parts.map(partToV03),
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.extensions.length ? { extensions: m.extensions } : {}),
    ...(m.referenceTaskIds.length ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
}

export function messageToV1(m: Message03): Message {
  return {
    messageId: m.messageId,
    contextId: m.contextId ?? '',
    taskId: m.taskId ?? '',
    role: m.role === 'agent' ? Role.ROLE_AGENT : Role.ROLE_USER,
    parts: m.parts.map(partToV1),
    metadata: m.metadata,
    extensions: m.extensions ?? [],
    referenceTaskIds: m.referenceTaskIds ?? [],
  };
}

function artifactToV1(a: Artifact03): Artifact {
  return {
    artifactId: a.artifactId,
    name: a.name ?? '',
    description: a.description ?? '',
    parts: a.parts.map(partToV1),
    metadata: a.metadata,
    extensions: a.extensions ?? [],
  };
}

function statusToV1(s: Task03['status']) {
  return { state: stateToV1(s.state), message: s.message ? messageToV1(s.message) : undefined, timestamp: s.timestamp };
}

export function taskToV1(t: Task03): Task {
  return {
    id: t.id,
    contextId: t.contextId,
    status: statusToV1(t.status),
    artifacts: (t.artifacts ?? []).map(artifactToV1),
    history: (t.history ?? []).map(messageToV1),
    metadata: t.metadata,
  };
}

/** A 0.3 answer or event as 1.0's StreamResponse. */
export function eventToV1(e: Message03 | Task03 | StatusEvent03 | ArtifactEvent03): StreamResponse {
  switch (e.kind) {
    case 'task':
      return { payload: { $case: 'task', value: taskToV1(e) } };
    case 'message':
      return { payload: { $case: 'message', value: messageToV1(e) } };
    case 'status-update':
      return { payload: { $case: 'statusUpdate', value: { taskId: e.taskId, contextId: e.contextId, status: statusToV1(e.status), metadata: e.metadata } } };
    default:
      return {
        payload: {
          $case: 'artifactUpdate',
          value: {
            taskId: e.taskId,
            contextId: e.contextId,
            artifact: artifactToV1(e.artifact),
            append: e.append ?? false,
            lastChunk: e.lastChunk ?? false,
            metadata: e.metadata,
          },
        },
      };
  }
}

/* Push notification configurations (push.ts, D-104): 1.0's flat TaskPushNotificationConfig
 * with authentication {scheme}; 0.3's nested one with authentication {schemes[]}. */

/** A 1.0 configuration as 0.3's PushNotificationConfig input, unset (empty) fields left out so
 * the 0.3 checks apply their defaults (an id defaults to the task's). */
export function configToV03(c: TaskPushNotificationConfig): Config03 {
  const auth = c.authentication;
  return {
    url: c.url,
    ...(c.id ? { id: c.id } : {}),
    ...(c.token ? { token: c.token } : {}),
    ...(auth ? { authentication: { schemes: auth.scheme ? [auth.scheme] : [], ...(auth.credentials ? { credentials: auth.credentials } : {}) } } : {}),
  };
}

/** A stored configuration as 1.0 shows it. */
export function configToV1(c: TaskConfig03): TaskPushNotificationConfig {
  const p = c.pushNotificationConfig;
  const auth = p.authentication;
  return {
    tenant: '',
    id: p.id ?? c.taskId,
    taskId: c.taskId,
    url: p.url,
    token: p.token ?? '',
    authentication: auth ? { scheme: auth.schemes[0] ?? '', credentials: auth.credentials ?? '' } : undefined,
  };
}

/** SendMessage's request as message/send's params: a send blocks unless returnImmediately. */
export function sendToV03(req: SendMessageRequest): MessageSendParams {
  const c = req.configuration;
  return {
    message: req.message ? messageToV03(req.message) : (undefined as unknown as Message03),
    ...(req.metadata ? { metadata: req.metadata } : {}),
    ...(c
      ? {
          configuration: {
            blocking: !c.returnImmediately,
            ...(c.acceptedOutputModes.length ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
            ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
            ...(c.taskPushNotificationConfig ? { pushNotificationConfig: configToV03(c.taskPushNotificationConfig) } : {}),
          },
        }
      : {}),
  };
}
