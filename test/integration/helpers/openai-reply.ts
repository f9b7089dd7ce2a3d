// A fake OpenAI-compatible server's answer to one chat completion request: `content` as one
// assistant message with fixed usage, streamed as SSE chunks when the request asked to stream.
import type { ServerResponse } from 'node:http';

export function replyChatCompletion(
  res: ServerResponse,
  p: { model: string; stream?: boolean },
  content: string,
  usage = { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59 },
): void {
  if (p.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (o: Record<string, unknown>) =>
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: p.model, ...o })}\n\n`);
    frame({ choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] });
    frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    frame({ choices: [], usage });
    res.end('data: [DONE]\n\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: p.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage,
    }),
  );
}
