// The runtime's memory store: one interface, several backends (SQLite now, PostgreSQL
// later), proven by one shared test suite. spec 2.4, 4.2, 5.3.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { ThreadClaim } from './owner-cache.ts';
import type { RuntimeSettingsStore } from './runtime-settings.ts';
import type { TaskListPage, TaskListQuery } from './task-list.ts';

export type { ThreadClaim };

/** Counts of rows removed by a delete, per table family (spec 4.2 DELETE ?all=true). */
export interface DeletedCounts {
  checkpoints: number;
  checkpoint_blobs: number;
  checkpoint_writes: number;
  persistent_memory: number;
}

export class ThreadOwnershipError extends Error {
  override readonly name = 'ThreadOwnershipError';
  constructor(
    readonly threadId: string,
    readonly ownerAgentId: string,
    readonly callerAgentId: string,
  ) {
    super(`thread ${threadId} is owned by another agent`);
  }
}

export interface MemoryStore {
  readonly backend: 'sqlite' | 'postgres';
  /** A LangGraph checkpointer whose threads are owned by `agentId`. Writing to a thread
   * owned by another agent throws ThreadOwnershipError. */
  checkpointer(agentId: string): BaseCheckpointSaver;
  /** Durable A2A task store (tasks/get survives a restart). */
  taskStore(): TaskStore;
  /** Settings changed through the management API, shared by every replica (runtime-settings.ts). */
  runtimeSettings(): RuntimeSettingsStore;
  /** The newest task of the agent's thread `contextId` that waits for input, if any. */
  waitingTask(agentId: string, contextId: string): Promise<string | undefined>;
  /** How many of the agent's tasks wait for input (input-required), for the metrics. */
  waitingTaskCount(agentId: string): Promise<number>;
  /** A page of the agent's stored A2A tasks, newest change first (task-list.ts, A2A 1.0 ListTasks). */
  listTasks(agentId: string, query: TaskListQuery): Promise<TaskListPage>;
  /** Resolves when the store answers a trivial query; rejects with the reason otherwise. */
  ping(): Promise<void>;
  /** Thread ids owned by the agent, oldest first; with `user`, only that user's threads. */
  listThreads(agentId: string, user?: string): Promise<string[]>;
  /** Up to `limit` of those threads after `after` in the same order (created_at, thread_id),
   * each with its created_at as an ISO timestamp (management/thread-pages.ts). */
  listThreadPage(agentId: string, page: { user?: string; limit: number; after?: ThreadCursor }): Promise<ThreadCursor[]>;
  /** Claims the thread for (agent, user) when nobody owns it yet, atomically across processes
   * and replicas; otherwise says whether that agent and user own it (docs/security.md, "Whose
   * conversation is whose"). A thread written without a claim (authentication off, or made
   * before the user column existed) belongs to the empty user ''. */
  claimThread(agentId: string, threadId: string, user: string): Promise<ThreadClaim>;
  /** Tells the store that `threadId` was just made here, unclaimed (authentication off): a new
   * id nobody has written yet, so its first turn's reads need not ask (PostgreSQL, D-110). */
  newThread?(agentId: string, threadId: string): void;
  /** The user owning the agent's thread; null when the thread has no row or another agent's. */
  threadUser(agentId: string, threadId: string): Promise<string | null>;
  /** The agent that owns a thread, or null when the store has no data for it. */
  threadOwner(threadId: string): Promise<string | null>;
  deleteThread(threadId: string): Promise<DeletedCounts>;
  /** Deletes every thread of the agent, and only of that agent. */
  deleteAllThreads(agentId: string): Promise<DeletedCounts>;
  /** Re-assigns every thread of oldId to newId in one transaction; returns the count. */
  migrateAgentId(oldId: string, newId: string): Promise<number>;
  /** Persistent (long-term) memory of a thread, e.g. a running summary. */
  getMemory(agentId: string, threadId: string, key: string): Promise<unknown | undefined>;
  putMemory(agentId: string, threadId: string, key: string, value: unknown): Promise<void>;
  /** The thread's transcript: every human and ai message, appended in order. The working
   * state in checkpoints is bounded; this record is what the thread's message list shows. */
  /** `turn`: the messages of a turn whose task is saved settled next; a store may write them with that save. */
  appendTranscript(agentId: string, threadId: string, messages: TranscriptMessage[], opts?: { turn?: boolean }): Promise<void>;
  readTranscript(threadId: string): Promise<TranscriptMessage[]>;
  close(): Promise<void>;
}

export interface TranscriptMessage {
  role: 'human' | 'ai';
  content: string;
}

/** A thread's place in the list of an agent's threads (oldest first, then by id). */
export interface ThreadCursor {
  createdAt: string;
  threadId: string;
}
