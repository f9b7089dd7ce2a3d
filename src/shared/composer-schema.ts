// Boundary: studio -> renderer. GET /api/playground/v1/composer-schema (the input contracts
// of the project the runtime has loaded, with what the composer suggests) and POST
// /composer-schema/validate (the composer's contract check as the author types); both
// documented in docs/playground-api.md.
import { z } from 'zod';
import { RuntimeSchemas } from './runtime-contract.ts';
import { FieldHistorySchema, SkillExampleSchema } from './suggestions.ts';

export type RunOption = z.infer<typeof RuntimeSchemas.RunOptionInfo>;

/** A declared input contract as the runtime's registry metadata gives it (spec 2.6), with the
 * values each field held in the project's earlier successful runs. */
export const ComposerContractSchema = RuntimeSchemas.InputContractInfo.extend({
  history: z.array(FieldHistorySchema),
});
export type ComposerContract = z.infer<typeof ComposerContractSchema>;

export const ComposerSchemaReplySchema = z.object({
  contracts: z.array(ComposerContractSchema),
  /** The run options the loaded project declares (manifest `runOptions`), as the runtime's
   * registry metadata gives them: fields the composer shows and sends as request metadata. */
  run_options: z.array(RuntimeSchemas.RunOptionInfo).default([]),
  skill_examples: z.array(SkillExampleSchema),
});
export type ComposerSchemaReply = z.infer<typeof ComposerSchemaReplySchema>;

/** One problem the contract check found (contracts.ts describes ajv's errors this way). */
export const ContractProblemSchema = z.object({
  /** RFC 6901 pointer into the DataPart ('' is the part itself). */
  path: z.string(),
  message: z.string(),
  /** For an enum error: the values the contract allows. */
  allowed: z.array(z.unknown()).optional(),
});
export type ContractProblem = z.infer<typeof ContractProblemSchema>;

/** POST /composer-schema/validate: a DataPart's `data` checked against contract `schema`. */
export const ContractCheckRequestSchema = z.strictObject({ schema: z.string().min(1).max(200), data: z.unknown() });
export type ContractCheckRequest = z.infer<typeof ContractCheckRequestSchema>;

export const ContractCheckReplySchema = z.object({
  schema: z.string(),
  valid: z.boolean(),
  /** False when the contract has no JSON Schema, or one ajv cannot compile. */
  checked: z.boolean(),
  problems: z.array(ContractProblemSchema),
});
export type ContractCheckReply = z.infer<typeof ContractCheckReplySchema>;
