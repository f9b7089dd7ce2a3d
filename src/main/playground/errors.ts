// One error class for the Playground services with stable snake_case codes; one table maps
// codes to HTTP statuses. The HTTP layer turns it into `{detail: {error, message, ...}}`
// (spec 7.3) in one place (http/errors.ts).
export const PLAYGROUND_ERRORS = {
  invalid_request: 400,
  /** A bundle with problems (each with its JSON pointer); nothing was written. */
  invalid_bundle: 400,
  unsupported_bundle_format: 400,
  forbidden_host: 403,
  forbidden_origin: 403,
  /** A path outside the project folder (or a link leading out of it). */
  forbidden_path: 403,
  not_found: 404,
  method_not_allowed: 405,
  active_run_conflict: 409,
  run_not_resumable: 409,
  /** A session's run is paused at a breakpoint: continue or stop it first. */
  run_paused: 409,
  /** A message to an experiment's hidden session: it runs one case, and stays as it ran. */
  experiment_session: 409,
  /** A save over a file that changed on disk since the editor opened it. */
  file_changed: 409,
  /** The playground's model call (D-100) when the runtime has no model configured. */
  model_not_configured: 409,
  /** POST /datasets of a name whose file exists. */
  dataset_exists: 409,
  /** Add to dataset with a case id the dataset already uses. */
  dataset_case_exists: 409,
  unsupported_database_version: 409,
  /** A bundle's file beside a dataset where the project has a different file (D-97). */
  dataset_file_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  internal_error: 500,
  runtime_unavailable: 503,
  studio_shutting_down: 503,
} as const;

export type PlaygroundErrorCode = keyof typeof PLAYGROUND_ERRORS;

export class PlaygroundError extends Error {
  override readonly name = 'PlaygroundError';
  constructor(
    readonly code: PlaygroundErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get status(): number {
    return PLAYGROUND_ERRORS[this.code];
  }

  toBody(): { detail: { error: string; message: string; [k: string]: unknown } } {
    return { detail: { error: this.code, message: this.message, ...this.extra } };
  }
}

export function notFound(what: 'session' | 'run' | 'dataset' | 'experiment', id: string): PlaygroundError {
  return new PlaygroundError('not_found', `no ${what} with id '${id}'`, { [`${what}_id`]: id });
}
