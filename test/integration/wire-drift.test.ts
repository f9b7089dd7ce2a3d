// The studio's real replies against the shared schemas of src/shared, strictly: every reply
// the renderer reads (the Playground API, the run events, comparison, bundles, and the studio's
// project views) must parse and come out unchanged. An object schema drops keys it does not
// know, so a field one side added, renamed or retyped fails here instead of in the renderer,
// which parses the same replies leniently (spec 2.6, 9.6).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BundleSchema, ImportPlanSchema, ImportResultSchema, type Bundle } from '../../src/shared/bundle.ts';
import { RunComparisonSchema, StabilityReportSchema } from '../../src/shared/compare.ts';
import { RunUsageSchema, SessionUsageSchema } from '../../src/shared/usage.ts';
import { ComposerSchemaReplySchema, ContractCheckReplySchema } from '../../src/shared/composer-schema.ts';
import { GraphViewSchema } from '../../src/shared/graph-view.ts';
import {
  PlaygroundErrorBodySchema,
  RunAcceptedSchema,
  RunDetailSchema,
  RunEventSchema,
  RunPageSchema,
  SessionPageSchema,
  SessionSchema,
  TranscriptPageSchema,
  type RunDetail,
} from '../../src/shared/playground.ts';
import { ProjectFileSchema, ProjectViewSchema, RuntimeStatusSchema, SaveReplySchema, SourceTargetsReplySchema } from '../../src/shared/studio-api.ts';
import { call, openEditableStudio, openEvents, waitFor, waitForRun, type EditableStudio, type TestStudio } from './helpers/playground-studio.ts';

/** Parses `body` with `schema` and asserts the result is `body` unchanged: no issue, and no
 * key the schema does not declare (it would have been dropped). */
function strict<S extends z.ZodType>(what: string, schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  expect(parsed.success ? [] : parsed.error.issues, `${what}: issues`).toEqual([]);
  expect(parsed.data, `${what}: a key the schema does not declare`).toStrictEqual(body);
  return parsed.data as z.output<S>;
}

/** `path` under the Playground API, or one of the studio's unversioned paths (`/api/...`). */
async function reply<S extends z.ZodType>(t: TestStudio, schema: S, method: string, path: string, body?: unknown, status = 200): Promise<z.output<S>> {
  const res = path.startsWith('/api/') ? await call(t.url.replace(/\/$/, ''), method, path, body) : await t.call(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  return strict(`${method} ${path}`, schema, res.body);
}

const text = (s: string) => ({ kind: 'text', text: s });

describe('the studio replies with the shared schemas, strictly', () => {
  let studio: EditableStudio;
  let t: TestStudio;
  let session: string;
  let done: RunDetail;

  beforeAll(async () => {
    studio = await openEditableStudio('wire-drift');
    t = studio.t;
    session = studio.session;
  });
  afterAll(() => studio?.close());

  it('sessions: create, list, read, rename', async () => {
    const created = await reply(t, SessionSchema, 'POST', '/sessions', { title: 'Drift' }, 201);
    await reply(t, SessionPageSchema, 'GET', '/sessions');
    await reply(t, SessionSchema, 'GET', `/sessions/${created.session_id}`);
    await reply(t, SessionSchema, 'PATCH', `/sessions/${created.session_id}`, { title: 'Drift renamed' });
  });

  it('runs and their events: every part kind, input_required and its resume, scores', async () => {
    const parts = [
      text('I want a refund for order ORD-12345'),
      { kind: 'data', data: { schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' } },
      { kind: 'file', name: 'note.txt', mime_type: 'text/plain', bytes_base64: Buffer.from('a note').toString('base64') },
      { kind: 'file', name: 'big.pdf', uri: 'https://files.example.test/big.pdf' },
    ];
    const accepted = await reply(t, RunAcceptedSchema, 'POST', `/sessions/${session}/runs`, { parts, metadata: { userId: 'u-1' }, revision: 'rev-1' }, 202);
    const stream = openEvents(t.api, accepted.run_id);
    await stream.ended;
    expect(stream.messages.length).toBeGreaterThan(0);
    for (const m of stream.messages) strict(`event ${m.event}`, RunEventSchema, m.data);
    done = await waitForRun(t, accepted.run_id);
    expect(done.status).toBe('completed');
    strict('run detail', RunDetailSchema, done);
    expect(done.scores.length).toBeGreaterThan(0);

    const waiting = await reply(t, RunAcceptedSchema, 'POST', `/sessions/${session}/runs`, { parts: [text('I want a refund')] }, 202);
    expect((await waitForRun(t, waiting.run_id)).status).toBe('input_required');
    const child = await reply(t, RunAcceptedSchema, 'POST', `/runs/${waiting.run_id}/resume`, { parts: [text('order id ORD-12345')] }, 202);
    await waitForRun(t, child.run_id);
    await reply(t, RunDetailSchema, 'GET', `/runs/${waiting.run_id}`);

    const runs = await reply(t, RunPageSchema, 'GET', `/sessions/${session}/runs`);
    expect(runs.items.find((r) => r.run_id === waiting.run_id)?.answered_by).toBe(child.run_id);
    const turns = await reply(t, TranscriptPageSchema, 'GET', `/sessions/${session}/transcript`);
    expect(turns.items.map((x) => x.run_id)).toContain(child.run_id);
    await reply(t, RunDetailSchema, 'DELETE', `/runs/${child.run_id}`);
    await reply(t, PlaygroundErrorBodySchema, 'GET', '/runs/run_01ARZ3NDEKTSV4RRFFQ69G5FAV', undefined, 404);
  });

  it('comparison and stability over a rerun', async () => {
    const rerun = await reply(t, RunAcceptedSchema, 'POST', `/runs/${done.run_id}/rerun`, undefined, 202);
    await waitForRun(t, rerun.run_id);
    const comparison = await reply(t, RunComparisonSchema, 'GET', `/compare?left=${done.run_id}&right=${rerun.run_id}&ignore=/x&tolerance=0.5&arrays=set`);
    expect(comparison.divergence.available).toBe(true);
    await reply(t, StabilityReportSchema, 'GET', `/runs/${done.run_id}/stability`);
    // Tokens and cost: the example's offline model reports no usage, so its calls count without tokens.
    const usage = await reply(t, RunUsageSchema, 'GET', `/runs/${done.run_id}/usage`);
    expect(usage.totals.cost_usd).toBeNull();
    await reply(t, SessionUsageSchema, 'GET', `/sessions/${done.session_id}/usage`);
  });

  it('conversation branches: the branch, its session and its transcript', async () => {
    const branched = await reply(t, RunAcceptedSchema, 'POST', `/runs/${done.run_id}/branch`, { parts: [text('Where is my order ORD-23456?')] }, 202);
    await waitForRun(t, branched.run_id);
    const branch = await reply(t, SessionSchema, 'GET', `/sessions/${branched.session_id}`);
    expect(branch.branch_of?.run_id).toBe(done.run_id);
    const turns = await reply(t, TranscriptPageSchema, 'GET', `/sessions/${branched.session_id}/transcript`);
    expect(turns.items.at(-1)?.versions?.length).toBe(2);
    await reply(t, PlaygroundErrorBodySchema, 'POST', `/runs/${done.run_id}/branch`, { parts: [] }, 400);
  });

  it('bundles: the export, the dry-run plan and the import', async () => {
    const bundle: Bundle = await reply(t, BundleSchema, 'POST', '/bundles/export', { session_ids: [session] });
    expect(bundle.input_contracts).not.toBeNull();
    expect(Object.keys(bundle.blobs).length).toBeGreaterThan(0);
    await reply(t, ImportPlanSchema, 'POST', '/bundles/import?dry_run=true', { bundle });
    const result = await reply(t, ImportResultSchema, 'POST', '/bundles/import', bundle, 201);
    const imported = Object.values(result.mapping.runs)[0];
    const detail = await reply(t, RunDetailSchema, 'GET', `/runs/${imported}`);
    expect(detail.imported).not.toBeNull();
  });

  it('the project views: /api/project, its files, /api/save, /graph, /composer-schema, /source-targets, the runtime state', async () => {
    const project = await reply(t, ProjectViewSchema, 'GET', '/api/project');
    const file = project.files.find((f) => f.endsWith('.md')) ?? project.files[0];
    const read = await reply(t, ProjectFileSchema, 'GET', `/api/project/file?path=${encodeURIComponent(file)}`);
    await reply(t, SaveReplySchema, 'POST', '/api/save', { path: file, content: read.content, base_sha256: read.sha256 });
    const code = done.code_files ? Object.keys(done.code_files)[0] : undefined;
    if (code) await reply(t, ProjectFileSchema, 'GET', `/api/project/file?path=${encodeURIComponent(code)}&run=${done.run_id}`);

    const graph = await reply(t, GraphViewSchema, 'GET', '/graph');
    await reply(t, ComposerSchemaReplySchema, 'GET', '/composer-schema');
    await reply(t, ContractCheckReplySchema, 'POST', '/composer-schema/validate', {
      schema: 'support.ticket/1',
      data: { schema: 'support.ticket/1', topic: 'nope' },
    });
    await reply(t, SourceTargetsReplySchema, 'GET', `/source-targets/${encodeURIComponent(graph.exit_node)}`);
    expect((await reply(t, RuntimeStatusSchema, 'GET', '/runtime')).state).toBe('ready');
    expect((await reply(t, RuntimeStatusSchema, 'GET', '/api/runtime')).state).toBe('ready');
  });

  it('a project that does not load: /api/project with its diagnostics, a run failed with diagnostic events', async () => {
    const f = await reply(t, ProjectFileSchema, 'GET', '/api/project/file?path=src/graph.ts');
    await reply(t, SaveReplySchema, 'POST', '/api/save', {
      path: 'src/graph.ts',
      content: f.content.replace('const DRAFT_MARKER', 'const DRAFT_MARKER =;\nconst BROKEN'),
    });
    await waitFor(
      async () => (await call(t.url.replace(/\/$/, ''), 'GET', '/api/project')).body.state === 'invalid',
      20_000,
      'the project to be reported invalid',
    );
    const project = await reply(t, ProjectViewSchema, 'GET', '/api/project');
    expect(project.diagnostics.length).toBeGreaterThan(0);
    const accepted = await reply(t, RunAcceptedSchema, 'POST', `/sessions/${session}/runs`, { parts: [text('How do I reset my password?')] }, 202);
    const stream = openEvents(t.api, accepted.run_id);
    await stream.ended;
    expect(stream.messages.some((m) => m.data.kind === 'diagnostic')).toBe(true);
    for (const m of stream.messages) strict(`event ${m.event}`, RunEventSchema, m.data);
    strict('failed run', RunDetailSchema, await waitForRun(t, accepted.run_id));
  });
});
