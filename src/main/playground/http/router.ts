// The Playground API routes (spec 4.3), mounted under /api/playground/v1. Each handler
// validates first (content type, JSON, zod) and then calls the service, which knows
// nothing of HTTP. Errors become `{detail: {error, message, ...}}` in http/errors.ts.
import type { ServerResponse } from 'node:http';
import { Router, type Request } from 'express';
import type { Logger } from 'pino';
import { PLAYGROUND_PREFIX, TERMINAL_STATES } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { EventLog } from '../events/log.ts';
import type { PlaygroundService } from '../service.ts';
import { decodeCursor, type PageQuery, type PlaygroundStore } from '../store/store.ts';
import { errorHandler, notFoundRoute } from './errors.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import { ComparisonService } from '../compare/service.ts';
import { UsageReader } from '../usage.ts';
import {
  CompareOptionsSchema,
  CompareQuerySchema,
  CreateRunSchema,
  CreateSessionSchema,
  ListQuerySchema,
  RenameSessionSchema,
  TranscriptQuerySchema,
  RerunSchema,
  ResumeSchema,
  SeqSchema,
  type ParsedCreateRun,
} from './schemas.ts';
import { streamRunEvents } from './sse.ts';

export interface PlaygroundRouterOptions {
  service: PlaygroundService;
  store: PlaygroundStore;
  bus: EventBus;
  log: EventLog;
  logger: Logger;
  /** Inline file bytes travel base64 in JSON: this bounds them (spec 8 gap, docs). */
  bodyLimit?: string;
  heartbeatMs?: number;
}

export interface PlaygroundRouter {
  router: Router;
  /** Ends every open event stream (studio shutdown). */
  endStreams(): void;
}

function pageQuery(req: Request, prefix: 'ses_' | 'run_'): PageQuery {
  const q = ListQuerySchema.parse(req.query);
  let before: string | null = null;
  if (q.cursor !== undefined) {
    before = decodeCursor(q.cursor, prefix);
    if (!before) throw new PlaygroundError('invalid_request', 'cursor is not one this API issued; pass next_cursor unchanged');
  }
  return { limit: q.limit, before, search: q.q?.trim() || null };
}

/** spec 4.3 rule 4: the cursor is Last-Event-ID or ?after; when both are present the larger wins. */
function eventCursor(req: Request): number {
  const header = req.headers['last-event-id'];
  const query = req.query.after;
  const values: number[] = [];
  if (typeof header === 'string' && header.trim() !== '') values.push(parseSeq(header.trim(), 'Last-Event-ID'));
  if (query !== undefined) {
    if (typeof query !== 'string') throw new PlaygroundError('invalid_request', 'after must be given once');
    values.push(parseSeq(query, 'after'));
  }
  return values.length ? Math.max(...values) : 0;
}

function parseSeq(value: string, name: string): number {
  const parsed = SeqSchema.safeParse(value);
  if (!parsed.success || !/^\d+$/.test(value)) throw new PlaygroundError('invalid_request', `${name} must be a non-negative integer seq, got '${value}'`);
  return parsed.data;
}

export function createPlaygroundRouter(o: PlaygroundRouterOptions): PlaygroundRouter {
  const { service } = o;
  const usage = new UsageReader(o.store, o.log);
  const comparison = new ComparisonService(o.store, o.log, (id) => service.getRun(id), usage);
  const router = Router();
  const streams = new Set<ServerResponse>();

  router.use(jsonBody({ limit: o.bodyLimit ?? PLAYGROUND_BODY_LIMIT }));
  const bodyOf = (req: Request): unknown => req.body ?? {};

  router.get('/sessions', (req, res) => {
    res.json(service.listSessions(pageQuery(req, 'ses_')));
  });

  router.post('/sessions', (req, res) => {
    const session = service.createSession(CreateSessionSchema.parse(bodyOf(req)));
    res.status(201).location(`${PLAYGROUND_PREFIX}/sessions/${session.session_id}`).json(session);
  });

  router.get('/sessions/:session_id', (req, res) => {
    res.json(service.getSession(req.params.session_id));
  });

  router.patch('/sessions/:session_id', (req, res) => {
    res.json(service.renameSession(req.params.session_id, RenameSessionSchema.parse(bodyOf(req)).title));
  });

  router.delete('/sessions/:session_id', (req, res) => {
    service.deleteSession(req.params.session_id);
    res.status(204).end();
  });

  router.get('/sessions/:session_id/runs', (req, res) => {
    res.json(service.listRuns(req.params.session_id, pageQuery(req, 'run_')));
  });

  router.get('/sessions/:session_id/transcript', (req, res) => {
    const q = TranscriptQuerySchema.parse(req.query);
    let after: string | null = null;
    if (q.cursor !== undefined) {
      after = decodeCursor(q.cursor, 'run_');
      if (!after) throw new PlaygroundError('invalid_request', 'cursor is not one this API issued; pass next_cursor unchanged');
    }
    res.json(service.transcript(req.params.session_id, after, q.limit));
  });

  router.post('/sessions/:session_id/runs', (req, res) => {
    const body = CreateRunSchema.parse(bodyOf(req)) as ParsedCreateRun;
    const accepted = service.createRun(req.params.session_id, body);
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });

  router.get('/runs/:run_id', (req, res) => {
    res.json(service.getRun(req.params.run_id));
  });

  router.delete('/runs/:run_id', (req, res) => {
    res.json(service.cancelRun(req.params.run_id));
  });

  router.post('/runs/:run_id/resume', (req, res) => {
    const accepted = service.resumeRun(req.params.run_id, ResumeSchema.parse(bodyOf(req)) as ParsedCreateRun);
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });

  router.post('/runs/:run_id/rerun', (req, res) => {
    const body = RerunSchema.parse(bodyOf(req));
    const accepted = service.rerunRun(req.params.run_id, body.replay);
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });

  router.get('/runs/:run_id/calls', (req, res) => {
    res.json(service.recordedCalls(req.params.run_id));
  });

  // Tokens and cost (docs/playground-api.md "Tokens and cost"): 404 for an unknown id first.
  router.get('/runs/:run_id/usage', (req, res) => {
    service.getRun(req.params.run_id);
    res.json(usage.run(req.params.run_id));
  });

  router.get('/sessions/:session_id/usage', (req, res) => {
    service.getSession(req.params.session_id);
    res.json(usage.session(req.params.session_id));
  });

  router.get('/compare', (req, res) => {
    const { left, right, ...options } = CompareQuerySchema.parse(req.query);
    res.json(comparison.compare(left, right, options));
  });

  router.get('/runs/:run_id/stability', (req, res) => {
    res.json(comparison.stability(req.params.run_id, CompareOptionsSchema.parse(req.query)));
  });

  router.get('/runs/:run_id/events', async (req, res) => {
    const runId = req.params.run_id;
    service.getRun(runId); // 404 before any SSE header
    const after = eventCursor(req);
    await streamRunEvents(req, res, runId, after, {
      bus: o.bus,
      log: o.log,
      isEnded: (id) => {
        if (o.log.isClosed(id)) return true;
        const row = o.store.getRun(id);
        return !row || TERMINAL_STATES.includes(row.status);
      },
      heartbeatMs: o.heartbeatMs,
      open: streams,
    });
  });

  router.use(notFoundRoute);
  router.use(errorHandler(o.logger));

  return {
    router,
    endStreams() {
      for (const res of streams) res.end();
      streams.clear();
    },
  };
}
