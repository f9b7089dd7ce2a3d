// Reads a server-sent-events body to its end through eventsource-parser (the run event stream
// and an experiment's progress stream): text as it arrives, each event to `onEvent`.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export async function readSse(body: Response['body'] & object, onEvent: (message: EventSourceMessage) => void): Promise<void> {
  const parser = createParser({ onEvent });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } finally {
    reader.releaseLock();
  }
}
