// The reserved request metadata key of a studio run's tool mocks (docs/playground-api.md,
// "Tool mocks"; D-102): taken out of both metadata objects before the A2A SDK sees the
// request, and honoured only when the caller holds the studio's control credential.
import { MOCKS_METADATA_KEY, MockPlanSchema, type MockPlan } from '../../../shared/mocks.ts';

export function takeMocks(paramsMeta: Record<string, unknown>, messageMeta: Record<string, unknown> | undefined, trusted: boolean): MockPlan | null {
  const value = paramsMeta[MOCKS_METADATA_KEY] ?? messageMeta?.[MOCKS_METADATA_KEY];
  delete paramsMeta[MOCKS_METADATA_KEY];
  if (messageMeta) delete messageMeta[MOCKS_METADATA_KEY];
  if (!trusted || value === undefined) return null;
  const parsed = MockPlanSchema.safeParse(value);
  return parsed.success && parsed.data.mocks.length ? parsed.data : null;
}
