// The Playground API over real HTTP against the headless studio, with the real runtime
// child serving examples/support-desk (spec 2.6, 3, 4.3, 6.2, 7.3).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClientWith } from './helpers/runtime.ts';
import type { Page, RunAccepted, RunDetail, RunSummary, Session, TranscriptTurn } from '../../src/shared/playground.ts';
import { isTerminal, openEvents, range, rawRequest, seqs, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio();
  expect(await t.studio.runtime.waitReady(30_000)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
});

afterAll(async () => {
  await t?.close();
});

async function newSession(title?: string): Promise<Session> {
  const res = await t.call<Session>('POST', '/sessions', title === undefined ? {} : { title });
  expect(res.status).toBe(201);
  return res.body;
}

async function createRun(sessionId: string, body: Record<string, unknown>): Promise<RunAccepted> {
  const res = await t.call<RunAccepted>('POST', `/sessions/${sessionId}/runs`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

const text = (s: string) => ({ kind: 'text', text: s });
const runtimeClient = (url: string) => a2aClientWith(url);
const LONG_QUESTION =
  'I want a refund for order ORD-12345. Where is my order ORD-23456? How do I reset my password and change my delivery address or shipping?';

describe('sessions', () => {
  it('creates (201), lists with cursor paging, reads and deletes sessions', async () => {
    const created = await newSession('Refund flows');
    expect(created).toMatchObject({ title: 'Refund flows', run_count: 0, last_run_status: null });
    expect(created.session_id).toMatch(/^ses_[0-9A-Z]{26}$/);
    const untitled = await newSession();
    expect(untitled.title).toBe('Untitled session');
    const noBody = await t.call<Session>('POST', '/sessions');
    expect(noBody.status).toBe(201);

    const page1 = await t.call<Page<Session>>('GET', '/sessions?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((s) => s.session_id)).toEqual([noBody.body.session_id, untitled.session_id]);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await t.call<Page<Session>>('GET', `/sessions?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.items[0].session_id).toBe(created.session_id);

    expect((await t.call('GET', `/sessions/${created.session_id}`)).body.title).toBe('Refund flows');
    expect((await t.call('DELETE', `/sessions/${untitled.session_id}`)).status).toBe(204);
    const gone = await t.call('GET', `/sessions/${untitled.session_id}/runs`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: { error: 'not_found', message: expect.any(String), session_id: untitled.session_id } });
  });

  it('answers invalid requests with {detail: {error, message}}', async () => {
    const badLimit = await t.call('GET', '/sessions?limit=500');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.detail).toMatchObject({ error: 'invalid_request', issues: expect.any(Array) });
    expect((await t.call('GET', '/sessions?cursor=garbage')).body.detail.error).toBe('invalid_request');
    const notJson = await t.call('POST', '/sessions', 'title=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(notJson.status).toBe(415);
    expect(notJson.body.detail.error).toBe('unsupported_media_type');
    const broken = await t.call('POST', '/sessions', '{"title":', { 'content-type': 'application/json' });
    expect(broken.status).toBe(400);
    expect(broken.body.detail.error).toBe('invalid_request');
    const unknownField = await t.call('POST', '/sessions', { name: 'x' });
    expect(unknownField.status).toBe(400);
    expect((await t.call('GET', '/nope')).body.detail.error).toBe('not_found');
    expect((await t.call('GET', '/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
  });
});

describe('session titles and search', () => {
  it('names a session after its first message, renames it with PATCH, and finds sessions by title or run text', async () => {
    const s = await newSession();
    expect(s.title).toBe('Untitled session');
    const run = await createRun(s.session_id, { parts: [text('How do I   reset\nmy password?')] });
    await waitForRun(t, run.run_id);
    expect((await t.call<Session>('GET', `/sessions/${s.session_id}`)).body.title).toBe('How do I reset my password?');
    // A second message leaves the title alone.
    await waitForRun(t, (await createRun(s.session_id, { parts: [text('Thanks')] })).run_id);
    expect((await t.call<Session>('GET', `/sessions/${s.session_id}`)).body.title).toBe('How do I reset my password?');

    const renamed = await t.call<Session>('PATCH', `/sessions/${s.session_id}`, { title: '  Password reset 100%_ sure  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ session_id: s.session_id, title: 'Password reset 100%_ sure', run_count: 2 });
    expect((await t.call('PATCH', `/sessions/${s.session_id}`, { title: '   ' })).status).toBe(400);
    expect((await t.call('PATCH', `/sessions/${s.session_id}`, { title: 'x', extra: 1 })).status).toBe(400);
    expect((await t.call('PATCH', '/sessions/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV', { title: 'x' })).status).toBe(404);

    const search = async (q: string) => (await t.call<Page<Session>>('GET', `/sessions?q=${encodeURIComponent(q)}`)).body.items.map((x) => x.session_id);
    expect(await search('refund policy nowhere')).not.toContain(s.session_id);
    expect(await search('my PASSWORD')).toContain(s.session_id); // a run's input text, case-insensitive
    expect(await search('reset 100')).toContain(s.session_id); // title, case-insensitive
    expect(await search('THANKS')).toContain(s.session_id); // a run's input text
    expect(await search('100%_')).toContain(s.session_id); // % and _ taken literally
    expect(await search('10_%')).not.toContain(s.session_id);
    expect(await search('"kind"')).not.toContain(s.session_id); // not the stored JSON
  });
});

describe('runs', () => {
  it('answers 202 at once and completes in the background with output, trace events and scores', async () => {
    const s = await newSession();
    const started = Date.now();
    const accepted = await createRun(s.session_id, {
      parts: [text('I want a refund for order ORD-12345')],
      metadata: { userId: 'u-1', 'svc.playground': { capture_token: 'forged' } },
      revision: 'rev-1',
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(accepted).toEqual({ run_id: expect.stringMatching(/^run_[0-9A-Z]{26}$/), status: 'queued', session_id: s.session_id, parent_run_id: null });

    const stream = openEvents(t.api, accepted.run_id);
    await stream.ended;
    const kinds = new Set(stream.messages.map((m) => m.event));
    expect([...kinds]).toEqual(expect.arrayContaining(['run.status', 'run.phase', 'output.delta', 'trace', 'run.output']));
    for (const m of stream.messages) {
      expect(m.id).toBe(String(m.data.seq));
      expect(m.event).toBe(m.data.kind);
      expect(m.data.run_id).toBe(accepted.run_id);
    }
    expect(seqs(stream.messages)).toEqual(range(1, stream.messages.length));
    const statuses = stream.messages.filter((m) => m.data.kind === 'run.status').map((m) => (m.data as { status: string }).status);
    expect(statuses).toEqual(['queued', 'preparing', 'running', 'completed']);
    expect(isTerminal(stream.messages.at(-1)!)).toBe(true);
    const run = (await t.call<RunDetail>('GET', `/runs/${accepted.run_id}`)).body;
    const traceNames = stream.messages.flatMap((m) => (m.data.kind === 'trace' ? [m.data.name] : []));
    expect(traceNames).toEqual(expect.arrayContaining(['invoke.start', 'routing', 'guardrail', 'invoke.end', 'evaluation.result']));

    expect(run).toMatchObject({ status: 'completed', reason: null, origin: 'send', revision: 'rev-1', metadata: { userId: 'u-1' } });
    expect(run.context_id).toEqual(expect.any(String));
    expect(run.task_id).toEqual(expect.any(String));
    expect(run.duration_ms).toBeGreaterThanOrEqual(0);
    expect(run.last_seq).toBe(stream.messages.length);
    // The reserved key is never stored or shown (docs/decisions.md D-11).
    expect(JSON.stringify(run)).not.toContain('svc.playground');
    expect(JSON.stringify(stream.messages)).not.toContain('svc.playground');
    // ... nor kept by the runtime in the task or the thread.
    const runtimeUrl = t.studio.runtime.status()!.url!;
    const task = await runtimeClient(runtimeUrl).getTask({ id: run.task_id! });
    expect(JSON.stringify(task)).toContain('ORD-12345');
    expect(JSON.stringify(task)).not.toContain('svc.playground');
    const thread = await (await fetch(`${runtimeUrl}api/v1/memory/threads/${run.context_id}/messages`)).text();
    expect(thread).not.toContain('svc.playground');
    expect(run.output_parts[0]).toMatchObject({ kind: 'text', text: expect.stringContaining('ORD-12345') });
    expect(run.output_parts[1]).toMatchObject({ kind: 'data', data: { schema: 'support.answer/1', verdict: 'approved' } });
    // The deltas add up to the final text.
    const deltas = stream.messages.flatMap((m) => (m.data.kind === 'output.delta' ? [m.data.text] : [])).join('');
    expect(deltas).toBe((run.output_parts[0] as { text: string }).text);
    // Scores from evaluation.result: only the keys present.
    expect(run.scores.map((x) => x.evaluator)).toEqual(['answer-completeness', 'tone']);
    for (const score of run.scores) {
      expect(Object.keys(score).every((k) => ['evaluator', 'score', 'reason', 'passStatus', 'scope', 'node', 'duration_ms'].includes(k))).toBe(true);
    }
    expect(run.scores[1]).not.toHaveProperty('scope');

    const list = await t.call<Page<RunSummary>>('GET', `/sessions/${s.session_id}/runs`);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).not.toHaveProperty('input_parts');
    const session = (await t.call<Session>('GET', `/sessions/${s.session_id}`)).body;
    expect(session).toMatchObject({ run_count: 1, last_run_status: 'completed' });
  });

  it('records an agent failure with its error code', async () => {
    const s = await newSession();
    const { run_id } = await createRun(s.session_id, { parts: [text('Refund order ORD-00000 please')] });
    const run = await waitForRun(t, run_id);
    expect(run).toMatchObject({ status: 'failed', reason: 'agent_error' });
    expect(run.output_parts[0]).toMatchObject({ kind: 'error', code: 'NOT_FOUND' });
    expect(run.output_parts[1]).toMatchObject({ kind: 'data', data: { errorCode: 'NOT_FOUND', errorReason: 'order_not_found' } });
  });

  it('resumes an input_required run as a child on the same context and task; refuses other resumes', async () => {
    const s = await newSession();
    const first = await createRun(s.session_id, { parts: [text('I want a refund')], metadata: { userId: 'u-2' } });
    const parent = await waitForRun(t, first.run_id);
    expect(parent.status).toBe('input_required');
    expect(parent.output_parts.at(-1)).toEqual({ kind: 'status', status: 'input_required' });
    expect(parent.output_parts[1]).toMatchObject({ kind: 'data', data: { missing: ['orderId'] } });

    const res = await t.call<RunAccepted>('POST', `/runs/${parent.run_id}/resume`, { parts: [text('order id ORD-12345')] });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', parent_run_id: parent.run_id, session_id: s.session_id });
    const child = await waitForRun(t, res.body.run_id);
    expect(child).toMatchObject({
      status: 'completed',
      origin: 'resume',
      parent_run_id: parent.run_id,
      context_id: parent.context_id,
      task_id: parent.task_id,
      metadata: { userId: 'u-2' },
    });
    expect(child.output_parts[1]).toMatchObject({ data: { verdict: 'approved', orderId: 'ORD-12345' } });

    const again = await t.call('POST', `/runs/${child.run_id}/resume`, { parts: [text('more')] });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatchObject({ error: 'run_not_resumable', status: 'completed', run_id: child.run_id });
    const twice = await t.call('POST', `/runs/${parent.run_id}/resume`, { parts: [text('order id ORD-99999')] });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toMatchObject({ error: 'run_not_resumable', status: 'input_required', resumed_by: child.run_id });
    // The list tells the answered question from one still waiting.
    const listed = (await t.call<Page<RunSummary>>('GET', `/sessions/${s.session_id}/runs`)).body.items;
    expect(listed.find((r) => r.run_id === parent.run_id)).toMatchObject({
      status: 'input_required',
      answered_by: child.run_id,
      input_preview: 'I want a refund',
    });
    // The session as a conversation: oldest turn first, question then reply, paged forward.
    const page1 = (await t.call<Page<TranscriptTurn>>('GET', `/sessions/${s.session_id}/transcript?limit=1`)).body;
    expect(page1.items).toHaveLength(1);
    expect(page1.items[0]).toMatchObject({
      run_id: parent.run_id,
      status: 'input_required',
      answered_by: child.run_id,
      input_parts: [text('I want a refund')],
    });
    expect(page1.items[0].output_parts).toEqual(parent.output_parts);
    const page2 = (await t.call<Page<TranscriptTurn>>('GET', `/sessions/${s.session_id}/transcript?limit=1&cursor=${page1.next_cursor}`)).body;
    expect(page2.items.map((x) => [x.run_id, x.origin, x.parent_run_id])).toEqual([[child.run_id, 'resume', parent.run_id]]);
    expect(page2.items[0].output_parts).toEqual(child.output_parts);
    expect((await t.call('GET', `/sessions/${s.session_id}/transcript?cursor=bogus`)).status).toBe(400);
    expect((await t.call('GET', '/sessions/ses_01ARZ3NDEKTSV4RRFFQ69G5FAV/transcript')).status).toBe(404);
    expect((await t.call('POST', `/runs/${parent.run_id}/resume`, { parts: [] })).status).toBe(400);
    expect((await t.call('POST', '/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV/resume', { parts: [text('x')] })).status).toBe(404);
  });

  it('reruns any run with the same input parts on a new context', async () => {
    const s = await newSession();
    const first = await createRun(s.session_id, { parts: [text('Where is my order ORD-23456?')], metadata: { userId: 'u-3' } });
    const original = await waitForRun(t, first.run_id);
    const res = await t.call<RunAccepted>('POST', `/runs/${original.run_id}/rerun`);
    expect(res.status).toBe(202);
    const withBody = await waitForRun(t, res.body.run_id);
    expect(withBody).toMatchObject({
      origin: 'rerun',
      parent_run_id: original.run_id,
      status: 'completed',
      input_parts: original.input_parts,
      metadata: { userId: 'u-3' },
    });
    expect(withBody.context_id).not.toBe(original.context_id);
    const empty = await t.call<RunAccepted>('POST', `/runs/${original.run_id}/rerun`, {});
    expect(empty.status).toBe(202);
    await waitForRun(t, empty.body.run_id);
    expect((await t.call('POST', `/runs/${original.run_id}/rerun`, { parts: [] })).status).toBe(400);
  });

  it('allows one active run per project, also under concurrent requests, and for resume and rerun', async () => {
    // An input_required run in another session (a new message in its own session would
    // continue that conversation and answer the question).
    const waiting = await createRun((await newSession()).session_id, { parts: [text('I want a refund')] });
    const s = await newSession();
    expect((await waitForRun(t, waiting.run_id)).status).toBe('input_required');
    const slow = { parts: [text('How do I reset my password?')], metadata: { scriptedDelayMs: 100, scriptedChunks: 20 } };
    const [a, b] = await Promise.all([t.call('POST', `/sessions/${s.session_id}/runs`, slow), t.call('POST', `/sessions/${s.session_id}/runs`, slow)]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    const winner = a.status === 202 ? a : b;
    const loser = a.status === 202 ? b : a;
    expect(loser.body).toEqual({ detail: { error: 'active_run_conflict', message: expect.any(String), active_run_id: winner.body.run_id } });

    const other = await newSession();
    const blocked = await t.call('POST', `/sessions/${other.session_id}/runs`, { parts: [text('hi')] });
    expect(blocked.status).toBe(409);
    const rerun = await t.call('POST', `/runs/${winner.body.run_id}/rerun`);
    expect(rerun.status).toBe(409);
    expect(rerun.body.detail).toMatchObject({ error: 'active_run_conflict', active_run_id: winner.body.run_id });
    const resume = await t.call('POST', `/runs/${waiting.run_id}/resume`, { parts: [text('order id ORD-12345')] });
    expect(resume.status, JSON.stringify(resume.body)).toBe(409);
    expect(resume.body.detail).toMatchObject({ error: 'active_run_conflict', active_run_id: winner.body.run_id });

    const cancelled = await t.call<RunDetail>('DELETE', `/runs/${winner.body.run_id}`);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await t.call('POST', `/sessions/${other.session_id}/runs`, { parts: [text('How do I reset my password?')] })).status).toBe(202);
    const list = await t.call<Page<RunSummary>>('GET', `/sessions/${other.session_id}/runs`);
    await waitForRun(t, list.body.items[0].run_id);
  });

  it('cancels an active run (user_cancelled) and its A2A task; cancelling again changes nothing', async () => {
    const s = await newSession();
    const { run_id } = await createRun(s.session_id, { parts: [text('How do I reset my password?')], metadata: { scriptedDelayMs: 150, scriptedChunks: 40 } });
    const stream = openEvents(t.api, run_id);
    await stream.next((m) => m.data.kind === 'output.delta');
    const res = await t.call<RunDetail>('DELETE', `/runs/${run_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', reason: 'user_cancelled' });
    await stream.ended;
    const last = stream.messages.at(-1)!;
    expect(last.data).toMatchObject({ kind: 'run.status', status: 'cancelled', reason: 'user_cancelled' });
    const deltasAfter = stream.messages.slice(stream.messages.findIndex((m) => m.data.kind === 'run.output')).filter((m) => m.data.kind === 'output.delta');
    expect(deltasAfter).toHaveLength(0);

    // The A2A task is cancelled too.
    const client = runtimeClient(t.studio.runtime.status()!.url!);
    const taskId = (await waitForRun(t, run_id, (r) => r.task_id !== null)).task_id!;
    await expect
      .poll(async () => ((await client.getTask({ id: taskId })) as { result?: { status: { state: string } } }).result?.status.state, { timeout: 10_000 })
      .toBe('canceled');

    const again = await t.call<RunDetail>('DELETE', `/runs/${run_id}`);
    expect(again.body).toMatchObject({ status: 'cancelled', reason: 'user_cancelled' });
    const after = (await t.call<RunDetail>('GET', `/runs/${run_id}`)).body;
    expect(after.last_seq).toBe(last.data.seq);
    // The runtime's late trace events for the cancelled run are not an error of the runtime.
    await new Promise((r) => setTimeout(r, 300));
    const runtime = (await t.call<{ state: string; last_error: string | null }>('GET', '/runtime')).body;
    expect(runtime).toMatchObject({ state: 'ready', last_error: null });
  });

  it('refuses changed_files that are absolute or contain ..', async () => {
    const s = await newSession();
    for (const bad of ['/etc/passwd', '../outside/agent.json', 'src/../../x.ts', 'C:\\agent.json']) {
      const res = await t.call('POST', `/sessions/${s.session_id}/runs`, { parts: [text('hi')], changed_files: [bad] });
      expect(res.status, bad).toBe(400);
      expect(res.body.detail.error).toBe('invalid_request');
      expect(res.body.detail.issues[0].path).toEqual(['changed_files', 0]);
    }
    expect((await t.call<Page<RunSummary>>('GET', `/sessions/${s.session_id}/runs`)).body.items).toHaveLength(0);
  });

  it('validates parts: a file carries exactly one of bytes_base64 or uri', async () => {
    const s = await newSession();
    const both = await t.call('POST', `/sessions/${s.session_id}/runs`, { parts: [{ kind: 'file', bytes_base64: 'aGk=', uri: 'https://x.test/a' }] });
    expect(both.status).toBe(400);
    const badB64 = await t.call('POST', `/sessions/${s.session_id}/runs`, { parts: [{ kind: 'file', bytes_base64: 'not base64!' }] });
    expect(badB64.status).toBe(400);
    const noParts = await t.call('POST', `/sessions/${s.session_id}/runs`, { metadata: {} });
    expect(noParts.status).toBe(400);
    expect(noParts.body.detail.issues[0].path).toEqual(['parts']);
  });
});

describe('events (SSE)', () => {
  it('replays then streams live without gap or duplicate while the run produces events', async () => {
    const s = await newSession();
    // scriptedChunks gives exactly that many deltas (the answer is longer): 45.
    const { run_id } = await createRun(s.session_id, { parts: [text(LONG_QUESTION)], metadata: { scriptedDelayMs: 25, scriptedChunks: 45 } });
    const early = openEvents(t.api, run_id);
    await early.next((m) => m.data.kind === 'output.delta' && m.data.seq > 15);
    const middle = openEvents(t.api, run_id); // joins mid-run: replay from 1, then live
    await early.next((m) => m.data.kind === 'output.delta' && m.data.seq > 25);
    const cursor = openEvents(t.api, run_id, { after: 20 });
    expect(early.messages.some(isTerminal)).toBe(false); // still producing
    await Promise.all([early.ended, middle.ended, cursor.ended]);
    const total = early.messages.length;
    expect(early.messages.filter((m) => m.data.kind === 'output.delta').length).toBeGreaterThan(30);
    expect(seqs(early.messages)).toEqual(range(1, total));
    expect(seqs(middle.messages)).toEqual(range(1, total));
    expect(seqs(cursor.messages)).toEqual(range(21, total));
    expect(middle.messages.map((m) => m.data)).toEqual(early.messages.map((m) => m.data));
    for (const stream of [early, middle, cursor]) expect(isTerminal(stream.messages.at(-1)!)).toBe(true);
  });

  it('reconnects with Last-Event-ID mid-run; with both cursors the larger wins; closing never changes the run', async () => {
    const s = await newSession();
    const { run_id } = await createRun(s.session_id, { parts: [text(LONG_QUESTION)], metadata: { scriptedDelayMs: 20, scriptedChunks: 45 } });
    const first = openEvents(t.api, run_id);
    const cut = await first.next((m) => m.data.kind === 'output.delta' && m.data.seq >= 30);
    expect(first.messages.some(isTerminal)).toBe(false);
    first.close(); // the client drops
    const lastSeen = Math.max(...seqs(first.messages));
    expect(lastSeen).toBeGreaterThanOrEqual(cut.data.seq);

    const resumed = openEvents(t.api, run_id, { lastEventId: lastSeen });
    const both = openEvents(t.api, run_id, { lastEventId: 5, after: 20 });
    const both2 = openEvents(t.api, run_id, { lastEventId: 25, after: 2 });
    await Promise.all([resumed.ended, both.ended, both2.ended]);
    const end = resumed.messages.at(-1)!.data.seq;
    expect(seqs(resumed.messages)).toEqual(range(lastSeen + 1, end));
    expect(seqs(both.messages)).toEqual(range(21, end));
    expect(seqs(both2.messages)).toEqual(range(26, end));
    const run = await waitForRun(t, run_id);
    expect(run.status).toBe('completed');

    // After the end: a stream from 0 replays everything and ends; past the end it ends at once.
    const replay = openEvents(t.api, run_id);
    await replay.ended;
    expect(seqs(replay.messages)).toEqual(range(1, end));
    const past = openEvents(t.api, run_id, { after: end });
    await past.ended;
    expect(past.messages).toHaveLength(0);
    const bad = openEvents(t.api, run_id, { after: -1 });
    expect(await bad.status).toBe(400);
    expect(await openEvents(t.api, 'run_01ARZ3NDEKTSV4RRFFQ69G5FAV').status).toBe(404);
  });
});

describe('files and session deletion', () => {
  it('stores inline bytes content-addressed, never downloads uri files, and deletes only orphaned blobs', async () => {
    let hits = 0;
    const fileServer = http.createServer((_req, res) => {
      hits += 1;
      res.end('remote');
    });
    await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
    const remote = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/big.pdf`;
    try {
      const shared = Buffer.from('shared attachment bytes');
      const own = Buffer.from('only in session A');
      const file = (b: Buffer, name: string) => ({ kind: 'file', name, mime_type: 'text/plain', bytes_base64: b.toString('base64') });
      const a = await newSession('A');
      const b = await newSession('B');
      const ra = await createRun(a.session_id, {
        parts: [text('How do I reset my password?'), file(shared, 's.txt'), file(own, 'o.txt'), { kind: 'file', uri: remote, name: 'big.pdf' }],
      });
      const runA = await waitForRun(t, ra.run_id);
      const rb = await createRun(b.session_id, { parts: [text('How do I reset my password?'), file(shared, 's.txt')] });
      await waitForRun(t, rb.run_id);

      const sha = (x: Buffer) => (runA.input_parts.find((p) => p.kind === 'file' && p.source === 'inline' && p.size === x.length) as { sha256: string }).sha256;
      expect(runA.input_parts[1]).toEqual({
        kind: 'file',
        source: 'inline',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        size: shared.length,
        name: 's.txt',
        mime_type: 'text/plain',
      });
      expect(runA.input_parts[3]).toEqual({ kind: 'file', source: 'uri', uri: remote, availability: 'external', replay: 'by_reference', name: 'big.pdf' });
      expect(JSON.stringify(runA)).not.toContain(shared.toString('base64'));
      const blobDir = path.join(t.dataDir, 'blobs');
      expect(fs.readFileSync(path.join(blobDir, sha(shared)))).toEqual(shared);
      expect(fs.readFileSync(path.join(blobDir, sha(own)))).toEqual(own);
      expect(hits).toBe(0);

      expect((await t.call('DELETE', `/sessions/${a.session_id}`)).status).toBe(204);
      expect((await t.call('GET', `/runs/${ra.run_id}`)).status).toBe(404);
      expect(await openEvents(t.api, ra.run_id).status).toBe(404);
      expect(fs.existsSync(path.join(blobDir, sha(own)))).toBe(false);
      expect(fs.existsSync(path.join(blobDir, sha(shared)))).toBe(true);
      const db = new Database(path.join(t.dataDir, 'playground.sqlite'), { readonly: true });
      try {
        expect(db.prepare('SELECT COUNT(*) AS n FROM run_events WHERE run_id = ?').get(ra.run_id)).toEqual({ n: 0 });
        expect(db.prepare('SELECT COUNT(*) AS n FROM runs WHERE session_id = ?').get(a.session_id)).toEqual({ n: 0 });
        expect(db.prepare('SELECT sha256 FROM blobs WHERE sha256 = ?').get(sha(own))).toBeUndefined();
      } finally {
        db.close();
      }
      expect((await t.call('DELETE', `/sessions/${a.session_id}`)).status).toBe(404);
      // A rerun of B's run reuses the same blob; deleting B then removes it.
      const rerun = await t.call<RunAccepted>('POST', `/runs/${rb.run_id}/rerun`);
      await waitForRun(t, rerun.body.run_id);
      expect((await t.call('DELETE', `/sessions/${b.session_id}`)).status).toBe(204);
      expect(fs.existsSync(path.join(blobDir, sha(shared)))).toBe(false);
      expect(hits).toBe(0);
    } finally {
      fileServer.close();
    }
  });

  it('deleting a session with an active run cancels the run first', async () => {
    const s = await newSession();
    const { run_id } = await createRun(s.session_id, { parts: [text('How do I reset my password?')], metadata: { scriptedDelayMs: 100, scriptedChunks: 50 } });
    const stream = openEvents(t.api, run_id);
    await stream.next((m) => m.data.kind === 'output.delta');
    expect((await t.call('DELETE', `/sessions/${s.session_id}`)).status).toBe(204);
    await stream.ended;
    expect(stream.messages.at(-1)!.data).toMatchObject({ kind: 'run.status', status: 'cancelled', reason: 'user_cancelled' });
    const other = await newSession();
    const next = await createRun(other.session_id, { parts: [text('How do I reset my password?')] });
    expect((await waitForRun(t, next.run_id)).status).toBe('completed');
  });
});

describe('security (spec 5.1)', () => {
  it('refuses a foreign Host (DNS rebinding) and a cross-site Origin with 403 JSON, and sends no CORS headers', async () => {
    const sessions = `${t.api}/sessions`;
    const port = new URL(t.url).port;
    const rebinding = await rawRequest(sessions, { headers: { host: `evil.example:${port}` } });
    expect(rebinding.status).toBe(403);
    expect(rebinding.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(rebinding.body).detail.error).toBe('forbidden_host');
    expect((await rawRequest(`${t.url}`, { headers: { host: `127.0.0.1:1` } })).status).toBe(403);

    const crossSite = await rawRequest(sessions, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).detail.error).toBe('forbidden_origin');
    expect(crossSite.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await rawRequest(sessions, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const noOrigin = await rawRequest(sessions, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(noOrigin.status).toBe(403);

    const own = await rawRequest(sessions, { headers: { origin: t.url.replace(/\/$/, ''), host: `localhost:${port}` } });
    expect(own.status).toBe(200);
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    const capture = await rawRequest(`${t.url}internal/capture`, {
      method: 'POST',
      headers: { host: `evil.example:${port}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(capture.status).toBe(403);
  });

  it('accepts trace capture only for tokens issued to an active run', async () => {
    const res = await fetch(`${t.url}internal/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capture_token: 'not-issued', events: [{ name: 'invoke.start', ts: new Date().toISOString() }] }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: { error: string } }).detail.error).toBe('not_found');
    const bad = await fetch(`${t.url}internal/capture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events": 3}' });
    expect(bad.status).toBe(400);
  });

  it('serves the renderer (or a note when it is not built) at / and SPA paths, never for API paths', async () => {
    const root = await fetch(t.url);
    expect(root.status).toBe(200);
    const deep = await fetch(`${t.url}sessions/abc`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(await root.text());
    expect((await fetch(`${t.api}/unknown`)).status).toBe(404);
  });
});
