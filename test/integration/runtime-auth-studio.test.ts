// The studio keeps working when its project's .env configures caller and operator keys (for a
// deployment): the Playground calls its runtime child, and reloads it, with the child's
// RUNTIME_CONTROL_TOKEN, which the runtime takes as its supervisor's credential (docs/security.md).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAccepted, Session } from '../../src/shared/playground.ts';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { copyExample, startTestStudio, waitForRun } from './helpers/playground-studio.ts';

describe('a studio whose project configures A2A_API_KEYS and MANAGEMENT_API_KEYS', () => {
  it('runs the Playground and applies changed files by reload on its child', async () => {
    const dir = copyExample('auth-studio');
    fs.writeFileSync(path.join(dir, '.env'), `A2A_API_KEYS=${newKey('alice').entry}\nMANAGEMENT_API_KEYS=${newKey('ops').entry}\n`);
    const t = await startTestStudio({ projectDir: dir });
    try {
      const base = await t.studio.runtime.waitReady(30_000);
      // The child asks others for credentials...
      expect((await fetch(base!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
      expect((await fetch(`${base}api/v1/status`)).status).toBe(401);
      // ...and serves its studio.
      fs.appendFileSync(path.join(dir, 'prompts/system.md'), '\nBe brief.\n');
      const session = (await t.call<Session>('POST', '/sessions', {})).body.session_id;
      const accepted = await t.call<RunAccepted>('POST', `/sessions/${session}/runs`, {
        parts: [{ kind: 'text', text: 'How do I reset my password?' }],
        changed_files: ['prompts/system.md'],
      });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      const r = await waitForRun(t, accepted.body.run_id);
      expect(r.status, JSON.stringify(r)).toBe('completed');
    } finally {
      await t.close();
    }
  });
});
