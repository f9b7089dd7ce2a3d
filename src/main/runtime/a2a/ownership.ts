// Whose conversation is whose (docs/security.md): a thread (contextId) belongs to the user
// that started it, and only that user reads or continues it. The rules apply to
// authenticated principals only; with no caller authentication configured every request is
// ANONYMOUS (auth/principal.ts) and nothing here changes what the runtime does.
//   - The effective user is the principal's name. A trusted principal (a gateway acting for
//     many users) may name the user it acts for in params.metadata.userId; from any other
//     principal metadata.userId is replaced by the principal's name.
//   - metadata.history (spec 4.1 rule 4) is accepted from trusted principals only.
//   - A send on another user's contextId is refused with CONTEXT_REFUSED, whatever the thread
//     holds; a new contextId is claimed by its first sender.
//   - Another user's task reads as an unknown one: the task store the SDK's handler uses
//     (ownedTaskStore) does not find it, so every method answers TaskNotFoundError (-32001)
//     exactly as for a random id.
import { A2AError, ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { MessageSendParams, Task } from '@a2a-js/sdk';
import { principalOf, PrincipalUser, type Principal } from '../auth/principal.ts';
import type { MemoryStore } from '../store/types.ts';
import { JSONRPC } from './request-meta.ts';

/** The store's view the checks need. */
export type OwnershipStore = Pick<MemoryStore, 'claimThread' | 'threadUser' | 'newThread'>;

/** The refusal of a send on a contextId the caller does not own. The same for a thread of
 * another user, of the anonymous user (made while authentication was off) and of another
 * agent: it tells only that the id is taken, which a caller learns only by guessing it. */
export function contextRefused(): A2AError {
  return new A2AError(JSONRPC.INVALID_PARAMS, 'Invalid params: params.message.contextId names a conversation this caller cannot continue', {
    field: 'params.message.contextId',
  });
}

/** The refusal of metadata.history from a principal that is not trusted. */
export function historyRefused(): A2AError {
  return new A2AError(
    JSONRPC.INVALID_PARAMS,
    'Invalid params: metadata.history is accepted only from a trusted principal (A2A_TRUSTED_PRINCIPALS): it would put words in the thread that its user never sent',
    { field: 'params.metadata.history' },
  );
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The principal a request acts as: the caller, or for a trusted caller the user it names in
 * metadata.userId (a non-empty string). */
export function actingPrincipal(principal: Principal, metadata: unknown): Principal {
  if (principal.scheme === 'none' || !principal.trusted || !isObject(metadata)) return principal;
  const userId = metadata.userId;
  return typeof userId === 'string' && userId !== '' ? { ...principal, name: userId } : principal;
}

/** The call context carrying the acting principal (the SDK hands it to the task store and the
 * executor); the context itself when nothing changes. */
export function actingContext(context: ServerCallContext | undefined, metadata: unknown): ServerCallContext | undefined {
  const principal = principalOf(context);
  const acting = actingPrincipal(principal, metadata);
  if (acting === principal) return context;
  const user = context?.user instanceof PrincipalUser ? context.user.withPrincipal(acting) : new PrincipalUser(acting);
  return new ServerCallContext(context?.requestedExtensions, user);
}

/** Whether the acting principal may read a task: always without authentication, else when
 * the task's thread belongs to this agent and to the principal's user. */
async function mayRead(store: OwnershipStore, agentId: string, task: Task, context: ServerCallContext | undefined): Promise<boolean> {
  const principal = principalOf(context);
  if (principal.scheme === 'none') return true;
  if (!task.contextId) return false;
  return (await store.threadUser(agentId, task.contextId)) === principal.name;
}

/** The task store as the acting principal sees it: another user's task is not there. */
export function ownedTaskStore(inner: TaskStore, store: OwnershipStore, agentId: string): TaskStore {
  return {
    save: (task, context) => inner.save(task, context),
    load: async (taskId, context) => {
      const task = await inner.load(taskId, context);
      return task && (await mayRead(store, agentId, task, context)) ? task : undefined;
    },
  };
}

/**
 * The checks of a send (message/send, message/stream) before the SDK sees it. Returns the
 * context to hand on (the acting principal). Sets a contextId on a message that has neither
 * contextId nor taskId, so that the new thread is claimed before its task exists (or, with
 * authentication off, known to be new).
 */
export async function checkSend(params: MessageSendParams, context: ServerCallContext | undefined, store: OwnershipStore, agentId: string) {
  const principal = principalOf(context);
  const message = params.message;
  if (principal.scheme === 'none') {
    // A new conversation gets its id here rather than from the SDK (the same random UUID), so
    // that the store knows the thread is new: nothing to read for its first turn.
    if (!message.contextId && !message.taskId && store.newThread) store.newThread(agentId, (message.contextId = crypto.randomUUID()));
    return context;
  }
  const history = (isObject(params.metadata) ? params.metadata.history : undefined) ?? (isObject(message.metadata) ? message.metadata.history : undefined);
  if (history !== undefined && !principal.trusted) throw historyRefused();
  const acting = actingContext(context, params.metadata);
  // A message continuing a task without a contextId: the task's thread was checked when the
  // task was loaded (ownedTaskStore); another user's task is TaskNotFoundError.
  if (!message.contextId && message.taskId) return acting;
  message.contextId ||= crypto.randomUUID();
  if ((await store.claimThread(agentId, message.contextId, principalOf(acting).name)) === 'other') throw contextRefused();
  return acting;
}
