import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { InvocationTracer, LogTraceSink, isoTime, type TraceEvent, type TraceSink } from './trace.ts';

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
  const events = ['invoke.start', 'span.start', 'routing', 'span.end', 'evaluation.result', 'invoke.end'].map((name) => ({
    name,
    ts: '2026-11-23T00:00:00.000Z',
    task_id: 't1',
  }));

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

describe('the invocation tracer', () => {
  /** A sink keeping only `kept` events, recording what it is handed. */
  const recording = (kept: string[] | null) => {
    const got: TraceEvent[] = [];
    const sink: TraceSink = { emit: (e) => void got.push(e), ...(kept ? { keeps: (name: string) => kept.includes(name) } : {}) };
    return { sink, got };
  };

  it('builds only the events some sink keeps, each stamped with the invocation ids', () => {
    const a = recording(['invoke.end']);
    const b = recording(['invoke.end', 'span.end']);
    const tracer = new InvocationTracer([a.sink, b.sink], { task_id: 't1' }, null);
    expect(tracer.wants('span.start')).toBe(false);
    expect(tracer.wants('span.end')).toBe(true);
    for (const name of ['span.start', 'span.end', 'invoke.end']) tracer.emit(name, { n: name });
    // A sink is handed every event some sink keeps (its own filter is its business).
    expect(a.got.map((e) => e.name)).toEqual(['span.end', 'invoke.end']);
    expect(b.got.map((e) => e.name)).toEqual(['span.end', 'invoke.end']);
    expect(b.got[1]).toMatchObject({ name: 'invoke.end', task_id: 't1', n: 'invoke.end' });
  });

  it('wants every event for a sink without a filter, and for the log at debug', () => {
    expect(new InvocationTracer([recording(null).sink], {}, null).wants('span.start')).toBe(true);
    expect(new InvocationTracer([sinkAt('debug').sink], {}, null).wants('span.start')).toBe(true);
    expect(new InvocationTracer([sinkAt('info').sink], {}, null).wants('span.start')).toBe(false);
    expect(new InvocationTracer([sinkAt('info').sink], {}, null).wants('invoke.end')).toBe(true);
    expect(new InvocationTracer([sinkAt('warn').sink], {}, null).wants('invoke.end')).toBe(false);
    expect(new InvocationTracer([], {}, null).wants('invoke.end')).toBe(false);
  });
});

describe('event timestamps', () => {
  it('are the ISO string of their millisecond, across seconds, years and small milliseconds', () => {
    const times = [0, 7, 1_000, 1_009, 1_099, 1_999, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), Date.now()];
    for (const at of [...times, ...times.reverse()]) expect(isoTime(at)).toBe(new Date(at).toISOString());
  });

  it('are the time handed to each sink with the event', () => {
    const got: [TraceEvent, number | undefined][] = [];
    const sink: TraceSink = { emit: (e, at) => got.push([e, at]) };
    new InvocationTracer([sink], { task_id: 't1' }, null).emit('routing', { route: 'faq' });
    expect(got).toHaveLength(1);
    expect(Date.parse(got[0]![0].ts)).toBe(got[0]![1]);
  });
});
