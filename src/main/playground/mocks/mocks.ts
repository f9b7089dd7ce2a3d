// mocks/ owns the tool mocks of sessions and experiments (docs/playground-api.md, "Tool
// mocks"; D-102, D-103): stored as one JSON array per session (session_mocks) and per
// experiment (experiment_mocks, applied to each of its cases' hidden sessions), and the plan
// a run of the session sends the runtime: the session's own mocks, then its experiment's.
import { randomBytes } from 'node:crypto';
import { MAX_MOCKS, type Mock, type MockPlan, type ParsedMockInput } from '../../../shared/mocks.ts';
import { notFound, PlaygroundError } from '../errors.ts';
import type { Db } from '../store/db.ts';

type Stmt = ReturnType<Db['prepare']> & { run(...args: unknown[]): unknown; get(...args: unknown[]): unknown };

export class MockService {
  private readonly sql: Record<'session' | 'sessionExperiment' | 'putSession' | 'dropSession' | 'experiment' | 'putExperiment' | 'hasExperiment', Stmt>;

  constructor(db: Db) {
    const p = (s: string) => db.prepare<unknown[]>(s) as unknown as Stmt;
    this.sql = {
      session: p('SELECT mocks FROM session_mocks WHERE session_id = ?'),
      sessionExperiment: p('SELECT session_id, experiment_id FROM sessions WHERE session_id = ?'),
      putSession: p(
        'INSERT INTO session_mocks (session_id, mocks, updated_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET mocks = excluded.mocks, updated_at = excluded.updated_at',
      ),
      dropSession: p('DELETE FROM session_mocks WHERE session_id = ?'),
      experiment: p('SELECT mocks FROM experiment_mocks WHERE experiment_id = ?'),
      putExperiment: p('INSERT OR REPLACE INTO experiment_mocks (experiment_id, mocks) VALUES (?, ?)'),
      hasExperiment: p('SELECT 1 AS x FROM experiments WHERE experiment_id = ?'),
    };
  }

  private session(sessionId: string): { experiment_id: string | null } {
    const row = this.sql.sessionExperiment.get(sessionId) as { experiment_id: string | null } | undefined;
    if (!row) throw notFound('session', sessionId);
    return row;
  }

  private read(stmt: Stmt, id: string): Mock[] {
    const row = stmt.get(id) as { mocks: string } | undefined;
    return row ? (JSON.parse(row.mocks) as Mock[]) : [];
  }

  /** GET /sessions/{id}/mocks: the session's own mocks, in the order they are tried. */
  list(sessionId: string): Mock[] {
    this.session(sessionId);
    return this.read(this.sql.session, sessionId);
  }

  /** PUT /sessions/{id}/mocks: replaces them all (an empty list clears them). */
  set(sessionId: string, inputs: ParsedMockInput[]): Mock[] {
    this.session(sessionId);
    const mocks = inputs.map(stored);
    if (mocks.length) this.sql.putSession.run(sessionId, JSON.stringify(mocks), new Date().toISOString());
    else this.sql.dropSession.run(sessionId);
    return mocks;
  }

  /** POST /sessions/{id}/mocks: one more, tried after those set before. */
  add(sessionId: string, input: ParsedMockInput): Mock {
    const now = this.list(sessionId);
    if (now.length >= MAX_MOCKS) throw new PlaygroundError('invalid_request', `a session holds at most ${MAX_MOCKS} mocks; delete one first`);
    const mock = stored(input);
    this.sql.putSession.run(sessionId, JSON.stringify([...now, mock]), new Date().toISOString());
    return mock;
  }

  /** DELETE /sessions/{id}/mocks/{mock_id}. */
  remove(sessionId: string, mockId: string): void {
    const now = this.list(sessionId);
    const left = now.filter((m) => m.mock_id !== mockId);
    if (left.length === now.length) throw new PlaygroundError('not_found', `session ${sessionId} has no mock '${mockId}'`, { mock_id: mockId });
    if (left.length) this.sql.putSession.run(sessionId, JSON.stringify(left), new Date().toISOString());
    else this.sql.dropSession.run(sessionId);
  }

  /** An experiment's `mocks` create option, kept for each of its cases' runs. */
  setExperiment(experimentId: string, inputs: ParsedMockInput[]): void {
    if (!inputs.length || !this.sql.hasExperiment.get(experimentId)) return;
    this.sql.putExperiment.run(experimentId, JSON.stringify(inputs.map(stored)));
  }

  experimentMocks(experimentId: string): Mock[] {
    if (!this.sql.hasExperiment.get(experimentId)) throw notFound('experiment', experimentId);
    return this.read(this.sql.experiment, experimentId);
  }

  /** What a run of this session sends the runtime, or null when no mock applies. */
  planFor(sessionId: string): MockPlan | null {
    const row = this.sql.sessionExperiment.get(sessionId) as { experiment_id: string | null } | undefined;
    if (!row) return null;
    const mocks = [...this.read(this.sql.session, sessionId), ...(row.experiment_id ? this.read(this.sql.experiment, row.experiment_id) : [])];
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    return mocks.length ? { mocks: mocks.map(({ created_at, ...m }) => m) } : null;
  }
}

function stored(input: ParsedMockInput): Mock {
  return {
    mock_id: `mock_${randomBytes(6).toString('hex')}`,
    target: input.target,
    ...(input.node !== undefined ? { node: input.node } : {}),
    answer: input.answer,
    ...(input.label !== undefined ? { label: input.label } : {}),
    created_at: new Date().toISOString(),
  };
}
