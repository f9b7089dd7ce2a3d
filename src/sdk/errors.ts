// Agent execution errors (spec 7.2): a fixed enum of standard codes, an application error
// that carries a chosen code, domain reason, message and retriable flag, and a project
// error catalogue that maps domain codes onto the standard ones.

export const ERROR_CODES = [
  'INVALID_INPUT',
  'AUTH_REQUIRED',
  'NOT_FOUND',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'RATE_LIMITED',
  'GUARDRAIL_BLOCKED',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Default retry per code. The spec leaves the three upstream codes open: they are
 * transient by nature, so they default to retriable (docs/decisions.md D-3). */
export const DEFAULT_RETRIABLE: Record<ErrorCode, boolean> = {
  INVALID_INPUT: false,
  AUTH_REQUIRED: false,
  NOT_FOUND: false,
  UPSTREAM_UNAVAILABLE: true,
  UPSTREAM_TIMEOUT: true,
  RATE_LIMITED: true,
  GUARDRAIL_BLOCKED: false,
  INTERNAL_ERROR: false,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export interface AgentErrorInit {
  code: ErrorCode;
  reason: string;
  message: string;
  retriable?: boolean;
  domainCode?: string;
  domainTitle?: string;
  detail?: Record<string, unknown>;
}

/** An error raised by project code (or mapped by the runtime) that ends a task `failed`. */
export class AgentError extends Error {
  override readonly name = 'AgentError';
  readonly code: ErrorCode;
  readonly reason: string;
  readonly retriable: boolean;
  readonly domainCode?: string;
  readonly domainTitle?: string;
  readonly detail?: Record<string, unknown>;

  constructor(init: AgentErrorInit) {
    super(init.message);
    if (!isErrorCode(init.code)) {
      throw new TypeError(`'${String(init.code)}' is not a standard error code (one of ${ERROR_CODES.join(', ')})`);
    }
    if (!/^[A-Za-z0-9_.:-]+$/.test(init.reason)) {
      throw new TypeError(`errorReason must be an ASCII identifier, got '${init.reason}'`);
    }
    this.code = init.code;
    this.reason = init.reason;
    this.retriable = init.retriable ?? DEFAULT_RETRIABLE[init.code];
    this.domainCode = init.domainCode;
    this.domainTitle = init.domainTitle;
    this.detail = init.detail;
  }

  /** The DataPart body of a failed task (spec 7.2). */
  toDataPart(): Record<string, unknown> {
    return {
      errorCode: this.code,
      errorReason: this.reason,
      errorMessage: this.message,
      retriable: this.retriable,
      ...(this.domainCode ? { domainCode: this.domainCode } : {}),
      ...(this.domainTitle ? { domainTitle: this.domainTitle } : {}),
    };
  }
}

/** Raised for an unknown catalogue code: the JavaScript counterpart of a value error. */
export class ValueError extends Error {
  override readonly name = 'ValueError';
}

export interface CatalogueEntry {
  code: ErrorCode;
  reason: string;
  title: string;
  retriable?: boolean;
}

export type ErrorCatalogue = Record<string, CatalogueEntry>;

export interface ErrorRaiser {
  /** Builds the AgentError of a domain code; throws ValueError for an unknown code. */
  error(domainCode: string, message?: string, detail?: Record<string, unknown>): AgentError;
  /** Throws the AgentError of a domain code. */
  raise(domainCode: string, message?: string, detail?: Record<string, unknown>): never;
  readonly catalogue: Readonly<ErrorCatalogue>;
}

/** Validates a catalogue once, when the raiser is built: an invalid standard code is a
 * TypeError here, not at the first failure in production. */
export function defineErrorCatalogue(catalogue: ErrorCatalogue): ErrorRaiser {
  for (const [domainCode, entry] of Object.entries(catalogue)) {
    if (!isErrorCode(entry?.code)) {
      throw new TypeError(`error catalogue entry '${domainCode}': '${String(entry?.code)}' is not a standard error code`);
    }
    if (typeof entry.reason !== 'string' || !entry.reason) {
      throw new TypeError(`error catalogue entry '${domainCode}': reason must be a non-empty string`);
    }
    if (typeof entry.title !== 'string' || !entry.title) {
      throw new TypeError(`error catalogue entry '${domainCode}': title must be a non-empty string`);
    }
  }
  const frozen = Object.freeze({ ...catalogue });
  const error = (domainCode: string, message?: string, detail?: Record<string, unknown>): AgentError => {
    const entry = frozen[domainCode];
    if (!entry) throw new ValueError(`unknown error catalogue code '${domainCode}'`);
    return new AgentError({
      code: entry.code,
      reason: entry.reason,
      message: message ?? entry.title,
      retriable: entry.retriable,
      domainCode,
      domainTitle: entry.title,
      detail,
    });
  };
  return {
    catalogue: frozen,
    error,
    raise(domainCode, message, detail): never {
      throw error(domainCode, message, detail);
    },
  };
}
