// The composer's contract check as you type: each data part whose `schema` names a declared
// input contract is checked by the studio (POST /composer-schema/validate, the same ajv
// rules the runtime applies), debounced; the answer blocks Send while it lists problems.
import { useEffect, useState } from 'react';
import { ContractCheckReplySchema, type ContractCheckRequest, type ContractProblem } from '../../../shared/composer-schema.ts';
import { api } from './client.ts';

export interface PartCheck {
  /** The draft part's id. */
  id: string;
  schema: string;
  problems: ContractProblem[];
}

export interface DraftDataPart {
  id: string;
  text: string;
}

const DEBOUNCE_MS = 200;

function schemaOf(text: string): { schema: string; data: unknown } | null {
  try {
    const data = JSON.parse(text) as unknown;
    if (data && typeof data === 'object' && !Array.isArray(data) && typeof (data as { schema?: unknown }).schema === 'string') {
      return { schema: (data as { schema: string }).schema, data };
    }
  } catch {
    // not JSON yet: the composer says so itself
  }
  return null;
}

/** Problems per draft part with a declared contract; `pending` while a check is on its way. */
export function useContractCheck(parts: readonly DraftDataPart[], declared: readonly string[]): { checks: PartCheck[]; pending: boolean } {
  const [checks, setChecks] = useState<PartCheck[]>([]);
  const [pending, setPending] = useState(false);
  // The parts to check, as one string: the effect runs again only when what it sends changes.
  const todoJson = JSON.stringify(
    parts.flatMap((p) => {
      const s = schemaOf(p.text);
      return s && declared.includes(s.schema) ? [{ id: p.id, ...s }] : [];
    }),
  );

  useEffect(() => {
    const todo = JSON.parse(todoJson) as { id: string; schema: string; data: unknown }[];
    if (todo.length === 0) {
      setChecks([]);
      setPending(false);
      return;
    }
    setPending(true);
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        const results = await Promise.all(
          todo.map(async (t) => {
            const body: ContractCheckRequest = { schema: t.schema, data: t.data };
            const r = await api('/composer-schema/validate', ContractCheckReplySchema, { method: 'POST', body, signal: controller.signal });
            return { id: t.id, schema: t.schema, problems: r.problems };
          }),
        );
        setChecks(results);
      } catch (err) {
        if ((err as Error).name === 'AbortError') return;
        setChecks([]); // the runtime checks again when the run starts
      }
      setPending(false);
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [todoJson]);

  return { checks, pending };
}
