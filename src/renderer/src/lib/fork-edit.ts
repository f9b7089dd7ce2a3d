// The edit of "Edit and fork" (docs/playground-api.md, "Fork and re-run from a checkpoint"):
// the author's JSON of the channels, checked before anything is sent; only the channels whose
// value changed are sent, so the fork's patch names what the author changed.

/** The channels whose JSON differs from the checkpoint's, or an error to show. */
export function editedChannels(original: Record<string, unknown>, text: string): { values: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `Not JSON: ${(err as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'The state is a JSON object of channels.' };
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parsed)) if (JSON.stringify(v) !== JSON.stringify(original[k])) values[k] = v;
  if (!Object.keys(values).length) return { error: 'Nothing changed: use "Re-run from here" to run on from this step as it is.' };
  return { values };
}
