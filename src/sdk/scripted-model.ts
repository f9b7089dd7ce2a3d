// An offline chat model: it answers what a responder function decides, streamed in several
// chunks like a real model, so projects run with no key and the studio still shows deltas.
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

export type ScriptedResponder = (messages: BaseMessage[]) => string;

export interface ScriptedModelOptions {
  /** Number of chunks the answer is split into (default 6). */
  chunks?: number;
  /** Delay before each chunk, in ms (default 0). */
  delayMs?: number;
  /** Callbacks on every call (createChatModel's usage and model-call records). */
  callbacks?: BaseCallbackHandler[];
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

/** Splits text into exactly `n` non-empty pieces (as many as it has characters when it is
 * shorter), each cut moved to just after a nearby space where one is close; never loses a
 * character. The pieces are near-equal: each cut starts at k/n of the text. */
export function splitIntoChunks(text: string, n: number): string[] {
  const count = Math.min(Math.max(1, Math.floor(n)), text.length);
  if (count <= 1) return [text];
  // A cut may move to a space at most this far, and never past its neighbours' room.
  const reach = Math.min(12, Math.floor(text.length / count / 2));
  const cuts = [0];
  for (let k = 1; k < count; k++) {
    const lo = cuts[k - 1]! + 1;
    const hi = text.length - (count - k);
    const ideal = Math.min(Math.max(Math.round((k * text.length) / count), lo), hi);
    let cut = ideal;
    for (let d = 0; d <= reach; d++) {
      if (ideal + d <= hi && text[ideal + d - 1] === ' ') {
        cut = ideal + d;
        break;
      }
      if (ideal - d >= lo && text[ideal - d - 1] === ' ') {
        cut = ideal - d;
        break;
      }
    }
    cuts.push(cut);
  }
  cuts.push(text.length);
  return cuts.slice(1).map((end, i) => text.slice(cuts[i], end));
}

export class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions> {
  private readonly responder: ScriptedResponder;
  private readonly chunks: number;
  private readonly delayMs: number;

  constructor(responder: ScriptedResponder, options: ScriptedModelOptions = {}) {
    super({ ...(options.callbacks ? { callbacks: options.callbacks } : {}) });
    this.responder = responder;
    this.chunks = options.chunks ?? 6;
    this.delayMs = options.delayMs ?? 0;
  }

  _llmType(): string {
    return 'scripted';
  }

  override getLsParams(options: this['ParsedCallOptions']) {
    return { ...super.getLsParams(options), ls_provider: 'scripted', ls_model_name: 'scripted' };
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
