// The request a piece of work belongs to, through AsyncLocalStorage: the HTTP edge opens it
// (method, path), the JSON-RPC gate adds the JSON-RPC method and id, the executor the task.
// The process-wide handler of uncaught failures (cli.ts) logs it with the failure.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';

export interface RequestContext {
  method: string;
  path: string;
  /** Who the request acts as: an API key's name or a JWT's `sub` (auth/, never the credential). */
  principal?: string;
  /** The request's id: the caller's X-Request-Id or a new UUID (http/access-log.ts). */
  request_id?: string;
  rpc_method?: string;
  rpc_id?: string | number;
  task_id?: string;
  context_id?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Express middleware: the rest of the request (and whatever it starts) runs in its context. */
export function requestContext(): RequestHandler {
  return (req, _res, next) => storage.run({ method: req.method, path: req.path }, next);
}

/** The request the current code runs for, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Adds what is learnt later (the JSON-RPC id, the task) to the current request's context. */
export function noteRequest(fields: Omit<Partial<RequestContext>, 'method' | 'path'>): void {
  const ctx = storage.getStore();
  if (ctx) Object.assign(ctx, fields);
}
