// Conversation branches in the Playground store (docs/playground-api.md, "Conversation
// branches", migration 8): which session a branch was made from, at which run's user turn, and
// the root session its group is listed under.
import type { Db } from './db.ts';

export interface BranchRecord {
  session_id: string;
  origin_session_id: string;
  origin_run_id: string;
  root_session_id: string;
  created_at: string;
}

export class BranchRecords {
  private readonly stmts;

  constructor(db: Db) {
    const p = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
    this.stmts = {
      insert: p(`INSERT INTO session_branches (session_id, origin_session_id, origin_run_id, root_session_id, created_at) VALUES (?, ?, ?, ?, ?)`),
      of: p<BranchRecord>('SELECT * FROM session_branches WHERE session_id = ?'),
      ofRun: p<{ session_id: string; run_id: string | null }>(
        `SELECT b.session_id, (SELECT MIN(r.run_id) FROM runs r WHERE r.session_id = b.session_id) AS run_id
           FROM session_branches b WHERE b.origin_run_id = ? ORDER BY b.session_id`,
      ),
      from: p<{ session_id: string }>('SELECT session_id FROM session_branches WHERE origin_session_id = ? ORDER BY session_id'),
      firstRun: p<{ run_id: string }>('SELECT MIN(run_id) AS run_id FROM runs WHERE session_id = ?'),
    };
  }

  insert(b: BranchRecord): void {
    this.stmts.insert.run(b.session_id, b.origin_session_id, b.origin_run_id, b.root_session_id, b.created_at);
  }

  /** The branch record of a session; undefined for a session that is no branch. */
  of(sessionId: string): BranchRecord | undefined {
    return this.stmts.of.get(sessionId);
  }

  /** The branches made at this run's user turn, oldest first, each with its first run (the
   * edited turn; null while it has none). */
  ofRun(runId: string): { session_id: string; run_id: string | null }[] {
    return this.stmts.ofRun.all(runId);
  }

  /** The sessions branched from this one (at one of its own runs), oldest first. */
  from(sessionId: string): string[] {
    return this.stmts.from.all(sessionId).map((r) => r.session_id);
  }

  firstRun(sessionId: string): string | null {
    return this.stmts.firstRun.get(sessionId)?.run_id ?? null;
  }
}
