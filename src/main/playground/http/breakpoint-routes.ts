// Breakpoints and stepping (docs/playground-api.md, "Breakpoints and stepping"), mounted under
// /api/playground/v1 before the spec's routes: a session's breakpoints, the pause of a run, and
// what the spec's routes do with a run paused at a breakpoint: a resume with `breakpoint`
// continues or steps it (a child run, 202; with `values`, after the paused state took that
// edit, debug/edit.ts), DELETE stops it, and a new message to its session
// is refused (409 `run_paused`) while it waits.
import { Router, type Request } from 'express';
import { BreakpointResumeSchema, BreakpointSchema, ClearBreakpointQuerySchema } from '../../../shared/breakpoints.ts';
import { PLAYGROUND_PREFIX } from '../../../shared/playground.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { BreakpointService } from '../debug/breakpoints.ts';
import type { PausedStateEditor } from '../debug/edit.ts';
import { notFound, PlaygroundError } from '../errors.ts';
import type { PlaygroundService } from '../service.ts';
import type { PlaygroundStore } from '../store/store.ts';
import { CreateRunSchema } from './schemas.ts';

export interface BreakpointRouteDeps {
  breakpoints: BreakpointService;
  service: PlaygroundService;
  store: PlaygroundStore;
  /** Applies an edit of the paused state before Continue/Step (debug/edit.ts). */
  editor: PausedStateEditor;
}

export function createBreakpointRoutes({ breakpoints, service, store, editor }: BreakpointRouteDeps): Router {
  const router = Router();
  router.use(jsonBody({ limit: PLAYGROUND_BODY_LIMIT }));
  const bodyOf = (req: Request): Record<string, unknown> => (req.body && typeof req.body === 'object' ? req.body : {});
  const runOf = (id: string) =>
    store.getRun(id) ??
    (() => {
      throw notFound('run', id);
    })();
  const pausedError = (runId: string) =>
    new PlaygroundError('run_paused', `run ${runId} is paused at a breakpoint; continue, step or stop it first`, { paused_run_id: runId });

  router.get('/sessions/:session_id/breakpoints', async (req, res) => {
    res.json({ items: await breakpoints.list(req.params.session_id) });
  });
  router.put('/sessions/:session_id/breakpoints', async (req, res) => {
    breakpoints.set(req.params.session_id, BreakpointSchema.parse(bodyOf(req)));
    res.json({ items: await breakpoints.list(req.params.session_id) });
  });
  router.delete('/sessions/:session_id/breakpoints', async (req, res) => {
    breakpoints.clear(req.params.session_id, ClearBreakpointQuerySchema.parse(req.query));
    res.json({ items: await breakpoints.list(req.params.session_id) });
  });

  router.get('/runs/:run_id/pause', (req, res) => {
    const pause = breakpoints.pauseState(runOf(req.params.run_id));
    if (!pause) throw new PlaygroundError('not_found', `run ${req.params.run_id} did not pause at a breakpoint`);
    res.json({ run_id: req.params.run_id, ...pause });
  });

  // A new message while a run of the session is paused: refused, naming the paused run.
  router.post('/sessions/:session_id/runs', (req, res, next) => {
    const paused = breakpoints.pausedRun(req.params.session_id);
    if (paused) throw pausedError(paused);
    const body = bodyOf(req);
    if (!('debug' in body)) return next();
    // Per-run step mode: the run is created here so its debug control is noted before it is invoked.
    const { debug, ...rest } = CreateRunSchema.parse(body);
    const accepted = service.createRun(req.params.session_id, rest);
    if (debug?.step) breakpoints.noteStepRun(accepted.run_id);
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });

  // Continue / Step: the spec's resume with no new input; a paused run takes no other resume.
  router.post('/runs/:run_id/resume', async (req, res, next) => {
    const run = runOf(req.params.run_id);
    const body = bodyOf(req);
    if (!('breakpoint' in body)) {
      if (breakpoints.pauseOf(run))
        throw new PlaygroundError('run_not_resumable', `run ${run.run_id} is paused at a breakpoint: resume it with {"breakpoint": "continue"} or "step"`, {
          run_id: run.run_id,
        });
      return next();
    }
    const { breakpoint, values } = BreakpointResumeSchema.parse(body);
    if (!breakpoints.isPaused(run))
      throw new PlaygroundError('run_not_resumable', `run ${run.run_id} is not paused at a breakpoint`, { run_id: run.run_id, status: run.status });
    // An edit is applied to the paused thread first, checked there before anything runs.
    let edit;
    if (values && Object.keys(values).length) {
      service.assertNoActiveRun();
      edit = await editor.apply(run, breakpoints.pauseOf(run)!, values);
    }
    const accepted = service.continueRun(run.run_id, edit);
    breakpoints.noteAction(accepted.run_id, breakpoint, breakpoints.pauseOf(run)); // before the run is invoked (the executor starts it on a later tick)
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });

  // Stop: the paused run's A2A task is canceled; the run stays input_required, its pause `stopped`.
  router.delete('/runs/:run_id', async (req, res, next) => {
    const run = store.getRun(req.params.run_id);
    if (!run || !breakpoints.isPaused(run)) return next();
    await breakpoints.stop(run);
    res.json(service.getRun(run.run_id));
  });
  return router;
}
