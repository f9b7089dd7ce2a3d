// Shared by the store tests: a fresh SQLite file per test (every handle opened on it is
// closed, and the folder removed, after the test) and a one-node chat graph.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { openSqliteStore } from './sqlite.ts';
import type { MemoryStore } from './types.ts';

/** Registers the hooks; `file` and `dir` name the current test's database and folder. */
export function useTempStoreFile(prefix: string) {
  const temp = { dir: '', file: '' };
  const opened: MemoryStore[] = [];
  beforeEach(() => {
    temp.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    temp.file = path.join(temp.dir, 'memory.sqlite');
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    fs.rmSync(temp.dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return temp.dir;
    },
    get file() {
      return temp.file;
    },
    /** Opens a handle on the test's file (or on `f`), closed after the test. */
    open(f = temp.file): MemoryStore {
      const store = openSqliteStore(f);
      opened.push(store);
      return store;
    },
  };
}

/** One node that answers every human message with "reply <n>". */
export function chatGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [new AIMessage(`reply ${state.messages.length}`)] }))
    .addEdge(START, 'reply')
    .addEdge('reply', END)
    .compile({ checkpointer });
}

export const cfg = (thread_id: string) => ({ configurable: { thread_id } });
export const say = (graph: ReturnType<typeof chatGraph>, thread: string, text: string) => graph.invoke({ messages: [new HumanMessage(text)] }, cfg(thread));
