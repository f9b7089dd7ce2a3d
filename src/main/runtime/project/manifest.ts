// The agent project manifest (`agent.json`): its schema, validated with zod. The format is
// documented in docs/project-format.md. Objects are strict: an unknown key (a typo such as
// `inputMode`) is an error, not a silently ignored setting.
import { z } from 'zod';
import { ERROR_CODES } from '../../../sdk/errors.ts';

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
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type InputContract = z.infer<typeof InputContractSchema>;
export type EvaluatorDecl = z.infer<typeof EvaluatorSchema>;
