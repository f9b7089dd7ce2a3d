import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LogTraceSink } from './trace.ts';

function sinkAt(level: string) {
  const lines: { msg: string; trace: { name: string } }[] = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { sink: new LogTraceSink(pino({ level }, out)), lines };
}

describe('the structured-log trace sink', () => {
  const events = ['invoke.start', 'span.start', 'routing', 'span.end', 'evaluation.result', 'invoke.end'].map((name) => ({ name, ts: '2026-11-23T00:00:00.000Z', task_id: 't1' }));

  it('writes one line per invocation at info (invoke.end) and every event at debug', () => {
    const info = sinkAt('info');
    const debug = sinkAt('debug');
    for (const e of events) {
      info.sink.emit(e);
      debug.sink.emit(e);
    }
    expect(info.lines.map((l) => l.trace.name)).toEqual(['invoke.end']);
    expect(debug.lines.map((l) => l.trace.name)).toEqual(events.map((e) => e.name));
    expect(info.lines[0]).toMatchObject({ msg: 'trace invoke.end', trace: { task_id: 't1' } });
  });
});
