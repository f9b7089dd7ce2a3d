// Wire types of the composer's suggestions (GET /api/playground/v1/composer-schema, documented
// in docs/playground-api.md): the values earlier successful runs of the project put in each
// contract field, and the skills' example prompts from the agent card.

/** A scalar a field held in earlier successful runs. */
export type UsedScalar = string | number | boolean;

export interface UsedValue {
  value: UsedScalar;
  /** How many of the runs looked at used it. */
  count: number;
  /** When the newest of them was created. */
  last_used_at: string;
}

/** The values of one field: `pointer` is RFC 6901 into the DataPart's `data`, with `*` for
 * "any array element". Most used first, then most recent. */
export interface FieldHistory {
  pointer: string;
  values: UsedValue[];
}

export interface SkillExample {
  skill_id: string;
  skill_name: string;
  text: string;
}

/** How many of the latest successful runs the history is learnt from, and its caps. */
export const HISTORY_RUNS = 200;
export const HISTORY_VALUES_PER_FIELD = 10;
export const HISTORY_FIELDS_PER_CONTRACT = 50;
export const HISTORY_MAX_STRING = 200;
