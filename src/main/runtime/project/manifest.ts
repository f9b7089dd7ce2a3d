// The agent project manifest (`agent.json`): its schema, validated with zod. The format is
// documented in docs/project-format.md. Objects are strict: an unknown key (a typo such as
// `inputMode`) is an error, not a silently ignored setting.
import { z } from 'zod';
import { ERROR_CODES } from '../../../sdk/errors.ts';
import { RESERVED_CAPTURE_KEY } from '../../../shared/runtime-contract.ts';
import { RESERVED_DEBUG_KEY } from '../../../shared/breakpoints.ts';
import { REPLAY_METADATA_KEY } from '../../../shared/recordings.ts';
import { PricingSchema } from '../../../shared/pricing.ts';

export const MANIFEST_FILE = 'agent.json';

const identifier = z.string().regex(/^[A-Za-z0-9_.:/-]+$/, 'must be an identifier (letters, digits, _ . : / -)');
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(p) && !p.split(/[\\/]/).includes('..'), {
    message: 'must be a path inside the project folder (relative, without ..)',
  });

export const SkillSchema = z.strictObject({
  id: identifier,
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});

export const InputContractSchema = z.strictObject({
  /** The id a DataPart names in `data.schema`. */
  schema: identifier,
  /** A studio tab label only; never an A2A wire field (spec 2.6). */
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  /** The JSON Schema, inline ... */
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  /** ... or in a project file. */
  file: relativePath.optional(),
});

export const EvaluatorSchema = z.strictObject({
  name: identifier,
  module: relativePath,
  export: z.string().min(1).default('default'),
  /** spec 4.1 rule 5: default 90 seconds; null = unlimited. */
  timeoutSeconds: z.number().positive().nullable().default(90),
  node: z.string().optional(),
  scope: z.string().optional(),
});

export const CatalogueEntrySchema = z.strictObject({
  code: z.enum(ERROR_CODES),
  reason: identifier,
  title: z.string().min(1),
  retriable: z.boolean().optional(),
});

export const McpServerSchema = z.discriminatedUnion('transport', [
  z.strictObject({
    name: identifier,
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: relativePath.optional(),
  }),
  z.strictObject({
    name: identifier,
    transport: z.literal('http'),
    url: z.string().url(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

/** What a run option's value is; `integer` and `number` may have bounds. */
export const RUN_OPTION_TYPES = ['integer', 'number', 'string', 'boolean'] as const;

const fitsType = (type: (typeof RUN_OPTION_TYPES)[number], v: unknown) =>
  type === 'integer' ? Number.isInteger(v) : type === 'number' ? typeof v === 'number' && Number.isFinite(v) : typeof v === type;

/** A run option: a named request-metadata field the studio's composer shows, filled with its
 * default, and sends with each run (docs/project-format.md "Run options"). */
export const RunOptionSchema = z
  .strictObject({
    type: z.enum(RUN_OPTION_TYPES),
    default: z.union([z.number(), z.string(), z.boolean()]).optional(),
    description: z.string().min(1).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  })
  .superRefine((o, ctx) => {
    const numeric = o.type === 'integer' || o.type === 'number';
    for (const bound of ['min', 'max'] as const) {
      if (o[bound] !== undefined && !numeric) ctx.addIssue({ code: 'custom', path: [bound], message: `only an integer or number option has a ${bound}` });
    }
    if (o.type === 'integer') {
      for (const bound of ['min', 'max'] as const) {
        if (o[bound] !== undefined && !Number.isInteger(o[bound]))
          ctx.addIssue({ code: 'custom', path: [bound], message: 'must be a whole number for an integer option' });
      }
    }
    if (o.min !== undefined && o.max !== undefined && o.min > o.max) {
      // Bounds that contradict each other are the problem; the default is not measured by them.
      ctx.addIssue({ code: 'custom', path: ['max'], message: `must be at least min (${o.min})` });
      return;
    }
    if (o.default === undefined) return;
    if (!fitsType(o.type, o.default)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `must be ${o.type === 'integer' ? 'a whole number' : `a ${o.type}`}, as the option's type is ${o.type}`,
      });
    } else if (typeof o.default === 'number') {
      if (o.min !== undefined && o.default < o.min) ctx.addIssue({ code: 'custom', path: ['default'], message: `must be at least min (${o.min})` });
      if (o.max !== undefined && o.default > o.max) ctx.addIssue({ code: 'custom', path: ['default'], message: `must be at most max (${o.max})` });
    }
  });

/** The optional per-run budget (docs/project-format.md "Budget", D-94): a run whose model
 * calls go over it stops `failed` after the call that crossed it. */
export const BudgetSchema = z
  .strictObject({
    maxTokens: z.number().int().positive().optional(),
    maxCostUsd: z.number().positive().optional(),
  })
  .refine((b) => b.maxTokens !== undefined || b.maxCostUsd !== undefined, { message: 'give maxTokens, maxCostUsd or both' });

/** A run option's name: the request-metadata key it fills. */
const runOptionName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'must start with a letter or _ and hold only letters, digits, _ . -')
  .refine((k) => k !== RESERVED_CAPTURE_KEY, `is reserved for the studio (${RESERVED_CAPTURE_KEY})`)
  .refine((k) => k !== RESERVED_DEBUG_KEY, `is reserved for the studio (${RESERVED_DEBUG_KEY})`)
  .refine((k) => k !== REPLAY_METADATA_KEY, `is reserved for the studio (${REPLAY_METADATA_KEY})`);

export const ManifestSchema = z.strictObject({
  name: identifier,
  description: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a semantic version like 1.0.0'),
  skills: z.array(SkillSchema).min(1, 'declare at least one skill'),
  graph: z.strictObject({
    /** TypeScript file exporting the graph; loaded with no build step. */
    entry: relativePath,
    /** Export name: an uncompiled StateGraph or a factory (ctx) => StateGraph. */
    export: z.string().min(1).default('default'),
    /** The node whose output streams (spec 6.1); defaults to the node with an edge to END. */
    exitNode: z.string().min(1).optional(),
    recursionLimit: z.number().int().positive().default(25),
  }),
  inputModes: z.array(z.string()).default(['text/plain', 'application/json']),
  outputModes: z.array(z.string()).default(['text/plain', 'application/json']),
  inputContracts: z.array(InputContractSchema).default([]),
  output: z
    .strictObject({
      /** Default `schema` key of the first DataPart (spec 4.1 rule 6). */
      schema: identifier.optional(),
      /** Server-configured artifact name. */
      artifactName: z.string().min(1).optional(),
    })
    .default({}),
  evaluators: z.array(EvaluatorSchema).default([]),
  model: z
    .strictObject({
      temperature: z.number().min(0).max(2).optional(),
      timeoutSeconds: z.number().positive().optional(),
      maxRetries: z.number().int().min(0).max(10).optional(),
      maxTokens: z.number().int().positive().optional(),
    })
    .default({}),
  memory: z
    .strictObject({
      enabled: z.boolean().default(true),
      windowSize: z.number().int().positive().default(20),
      summarize: z.boolean().default(false),
      summarizeThreshold: z.number().int().positive().default(40),
    })
    .default({ enabled: true, windowSize: 20, summarize: false, summarizeThreshold: 40 }),
  errorCatalogue: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . -'), CatalogueEntrySchema).default({}),
  mcpServers: z.array(McpServerSchema).default([]),
  prompts: z.record(identifier, relativePath).default({}),
  runOptions: z.record(runOptionName, RunOptionSchema).default({}),
  budget: BudgetSchema.optional(),
  /** Model prices (USD per million tokens) over the defaults (src/shared/pricing.ts, D-95). */
  pricing: PricingSchema.default({}),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type InputContract = z.infer<typeof InputContractSchema>;
export type EvaluatorDecl = z.infer<typeof EvaluatorSchema>;
export type RunOptionDecl = z.infer<typeof RunOptionSchema>;
export type Budget = z.infer<typeof BudgetSchema>;
