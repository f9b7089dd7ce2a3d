// The graph's input for one turn (spec 4.1 rules 1 and 4, 2.3): the request's DataParts
// checked against the project's input contracts, then either the resume of a pending
// interrupt or the new human message with the working-memory policy applied (history seed on
// a cold thread, summary fold or bounding on a warm one, optional caps of spec 8).
import { Command } from '@langchain/langgraph';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { HumanMessage, type BaseMessage, type RemoveMessage } from '@langchain/core/messages';
import { AgentError } from '../../../sdk/errors.ts';
import type { AgentRequest } from '../../../sdk/state.ts';
import { contractProblemsText, describeContractErrors } from '../../../shared/contracts.ts';
import { pauseOf } from '../../../shared/breakpoints.ts';
import type { RuntimeSettings } from '../config.ts';
import type { Generation, MemoryConfig } from '../project/registry.ts';
import type { MemoryStore, TranscriptMessage } from '../store/types.ts';
import { planFold, SUMMARY_KEY, type Summarizer } from '../memory/fold.ts';
import { boundWorkingMemory, capHistory, capInput } from '../memory/window.ts';
import { historySeed, toTranscript } from '../memory/messages.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

export interface InputDeps {
  settings: Pick<RuntimeSettings, 'agentId' | 'maxHistoryTokens' | 'historyMaxMessages'>;
  memory: MemoryConfig;
  store: Pick<MemoryStore, 'getMemory' | 'putMemory'>;
  summarizer: Summarizer;
  /** The checkpointer of the registry (the thread's latest checkpoint). */
  checkpointer: () => BaseCheckpointSaver;
}

/** spec 4.1 rule 1: a DataPart naming a declared contract must match it (INVALID_INPUT). */
export function validateContracts(gen: Generation, request: AgentRequest): void {
  for (const [i, data] of request.data.entries()) {
    const id = typeof data.schema === 'string' ? data.schema : undefined;
    const contract = id ? gen.project.contracts.get(id) : undefined;
    if (!contract) continue;
    if (!contract.validate(data)) {
      const problems = describeContractErrors(contract.validate.errors);
      throw new AgentError({
        code: 'INVALID_INPUT',
        reason: 'contract_violation',
        message: `DataPart ${i + 1} does not match contract ${id}: ${contractProblemsText(problems)}`,
        detail: { schema: id, part: i + 1, problems, errors: contract.validate.errors },
      });
    }
  }
}

export interface InputCall {
  request: AgentRequest;
  /** The client's history (params.metadata.history), seeding a cold thread. */
  history: unknown;
  contextId: string;
  emit: Emit;
  /** Records the human turn (and a cold thread's seed). */
  transcript: TranscriptMessage[];
  signal: AbortSignal;
}

/** The graph's input for this message: a resume of a pending interrupt, or the new human
 * message with the working-memory policy applied. Records the human turn in `transcript`. */
export async function prepareInput(deps: InputDeps, c: InputCall): Promise<unknown> {
  const { settings, memory } = deps;
  const { request, contextId, emit } = c;
  // The latest checkpoint tells whether the thread is cold and whether an interrupt
  // waits for this message; reading the tuple is cheaper than computing getState. The
  // SQLite saver hands this same tuple to the run's first read (readForRun), so a warm
  // turn deserialises its state once.
  const saver = deps.checkpointer() as BaseCheckpointSaver & { readForRun?(threadId: string): Promise<CheckpointTuple | undefined> };
  const tuple = saver.readForRun ? await saver.readForRun(contextId) : await saver.getTuple({ configurable: { thread_id: contextId, checkpoint_ns: '' } });
  const cold = !tuple;
  const writes = tuple?.pendingWrites ?? [];
  // A fan-out gate of a stopped breakpoint pause (execution/breakpoints.ts) is no question: a new message does not answer it.
  const pending = writes.some((w) => w[1] === '__interrupt__' && !isGate(w[2])) && !writes.some((w) => w[1] === '__resume__');
  const history = (tuple?.checkpoint.channel_values?.messages ?? []) as BaseMessage[];
  if (settings.maxHistoryTokens !== null) capInput(request, settings.maxHistoryTokens, emit);
  const human = new HumanMessage(request.text || '(structured input)');
  // A cold thread has no summary yet (summaries are only written for threads with
  // checkpoints, and deleting a thread deletes both), so it skips the read.
  const { removals: folded, summary } = cold
    ? { removals: [], summary: undefined }
    : !memory.summarize
      ? { removals: [], summary: await summaryOf(deps, contextId) }
      : await fold(deps, contextId, history, emit, c.signal);
  if (summary) request.memory = { summary };

  const bounded = folded.length || cold ? [] : boundWorkingMemory(history, memory);
  const seed = cold && !pending ? historySeed(c.history, settings.historyMaxMessages) : [];
  c.transcript.push(...seed.map(toTranscript), { role: 'human', content: human.content as string });
  if (pending) return new Command({ resume: request, update: { messages: [...folded, ...bounded, human] } });
  const trimmed = settings.maxHistoryTokens !== null ? capHistory(cold ? seed : history, settings.maxHistoryTokens, emit, cold) : null;
  const messages = trimmed ? [...folded, ...bounded, ...trimmed.messages, human] : [...folded, ...bounded, ...seed, human];
  return { messages, request, response: null };
}

async function summaryOf(deps: InputDeps, threadId: string): Promise<string | undefined> {
  if (!deps.memory.enabled) return undefined;
  const stored = (await deps.store.getMemory(deps.settings.agentId, threadId, SUMMARY_KEY)) as { text?: string } | undefined;
  return stored?.text;
}

/** Folds older messages into the thread's long-term summary (spec 2.3 summarize); returns
 * the removals for the thread and the summary the graph should see. */
async function fold(
  deps: InputDeps,
  threadId: string,
  messages: BaseMessage[],
  emit: Emit,
  signal: AbortSignal,
): Promise<{ removals: RemoveMessage[]; summary: string | undefined }> {
  const { memory, store, settings, summarizer } = deps;
  const previous = (await store.getMemory(settings.agentId, threadId, SUMMARY_KEY)) as { text?: string; folded_messages?: number } | undefined;
  const plan = planFold(messages, memory.window_size, memory.summarize_threshold);
  if (!plan) return { removals: [], summary: previous?.text };
  const text = await summarizer(previous?.text ?? null, plan.folded, signal);
  const total = (previous?.folded_messages ?? 0) + plan.folded.length;
  await store.putMemory(settings.agentId, threadId, SUMMARY_KEY, { text, folded_messages: total, updated_at: new Date().toISOString() });
  emit('memory.summarized', { folded_messages: plan.folded.length, kept_messages: messages.length - plan.folded.length, total_folded: total });
  return { removals: plan.removals, summary: text };
}

function isGate(value: unknown): boolean {
  const first = Array.isArray(value) ? value[0] : value;
  return pauseOf((first as { value?: unknown } | undefined)?.value) !== null;
}
