// A run's tool mocks on the wire to the runtime (docs/playground-api.md, "Tool mocks"; D-102):
// under the reserved request metadata key, sent with the studio's control credential.
import type { MessageSendParams } from '@a2a-js/sdk';
import { MOCKS_METADATA_KEY, type MockPlan } from '../../../shared/mocks.ts';

export type { MockPlan };

export function withMocks(params: MessageSendParams, mocks: MockPlan | null): MessageSendParams {
  return mocks ? { ...params, metadata: { ...params.metadata, [MOCKS_METADATA_KEY]: mocks } } : params;
}
