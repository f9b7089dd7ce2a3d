// Boundary: studio -> renderer. The composer's suggestions inside the GET
// /api/playground/v1/composer-schema reply (docs/playground-api.md): the values earlier
// successful runs of the project put in each contract field, and the skills' example prompts
// from the agent card. The reply itself is in composer-schema.ts.
import { z } from 'zod';

/** A scalar a field held in earlier successful runs. */
export const UsedScalarSchema = z.union([z.string(), z.number(), z.boolean()]);
export type UsedScalar = z.infer<typeof UsedScalarSchema>;

export const UsedValueSchema = z.object({
  value: UsedScalarSchema,
  /** How many of the runs looked at used it. */
  count: z.number().int(),
  /** When the newest of them was created. */
  last_used_at: z.string(),
});
export type UsedValue = z.infer<typeof UsedValueSchema>;

/** The values of one field: `pointer` is RFC 6901 into the DataPart's `data`, with `*` for
 * "any array element". Most used first, then most recent. */
export const FieldHistorySchema = z.object({
  pointer: z.string(),
  values: z.array(UsedValueSchema),
});
export type FieldHistory = z.infer<typeof FieldHistorySchema>;

export const SkillExampleSchema = z.object({
  skill_id: z.string(),
  skill_name: z.string(),
  text: z.string(),
});
export type SkillExample = z.infer<typeof SkillExampleSchema>;

/** How many of the latest successful runs the history is learnt from, and its caps. */
export const HISTORY_RUNS = 200;
export const HISTORY_VALUES_PER_FIELD = 10;
export const HISTORY_FIELDS_PER_CONTRACT = 50;
export const HISTORY_MAX_STRING = 200;
