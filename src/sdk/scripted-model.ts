// An offline chat model: it answers what a responder function decides, streamed in several
// chunks like a real model, so projects run with no key and the studio still shows deltas.
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

export type ScriptedResponder = (messages: BaseMessage[]) => string;

export interface ScriptedModelOptions {
  /** Number of chunks the answer is split into (default 6). */
  chunks?: number;
  /** Delay before each chunk, in ms (default 0). */
  delayMs?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason ?? new Error('aborted'));
    };
    // The listener is removed when the timer fires: one run sleeps once per chunk.
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Splits text into `n` pieces on word boundaries where possible; never loses a character. */
export function splitIntoChunks(text: string, n: number): string[] {
  if (n <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + size);
    const space = text.indexOf(' ', end);
    if (end < text.length && space !== -1 && space - end < 12) end = space + 1;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

export class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions> {
  private readonly responder: ScriptedResponder;
  private readonly chunks: number;
  private readonly delayMs: number;

  constructor(responder: ScriptedResponder, options: ScriptedModelOptions = {}) {
    super({});
    this.responder = responder;
    this.chunks = options.chunks ?? 6;
    this.delayMs = options.delayMs ?? 0;
  }

  _llmType(): string {
    return 'scripted';
  }

  /** Per-call overrides from the run's configurable (scriptedChunks, scriptedDelayMs): the
   * call options no longer hold it, so read the config LangChain keeps for the current run. */
  private plan(): { chunks: number; delayMs: number } {
    const current = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { configurable?: Record<string, unknown> } | undefined;
    const conf = current?.configurable ?? {};
    const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
    return { chunks: Math.max(1, Math.floor(num(conf.scriptedChunks, this.chunks))), delayMs: num(conf.scriptedDelayMs, this.delayMs) };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { chunks, delayMs } = this.plan();
    for (const piece of splitIntoChunks(this.responder(messages), chunks)) {
      await sleep(delayMs, options.signal);
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let text = '';
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) text += chunk.text;
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}
