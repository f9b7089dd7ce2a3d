// Studio views of the open project, under /api/playground/v1: the runtime's graph, the
// declared input contracts for the composer, stored file blobs, and the runtime's state.
import { Router } from 'express';
import type { BlobStore } from '../playground/store/blobs.ts';
import type { RuntimeHandle } from '../playground/executor/runtime.ts';
import { PlaygroundError } from '../playground/errors.ts';
import { AGENT_CARD_PATH, METADATA_PATH, type RegistryMetadata } from '../../shared/runtime-contract.ts';
import type { PlaygroundStore } from '../playground/store/store.ts';
import { harvestHistory } from '../playground/suggestions.ts';
import { HISTORY_RUNS, type SkillExample } from '../../shared/suggestions.ts';
import type { SourceAnalysis } from './source/client.ts';
import { ContractChecker } from '../../shared/contracts.ts';
import { ContractCheckRequestSchema, type ComposerSchemaReply } from '../../shared/composer-schema.ts';
import { jsonBody } from '../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../http/limits.ts';

export interface ProjectRoutesOptions {
  projectDir: string;
  sources: SourceAnalysis;
  blobs: BlobStore;
  store: PlaygroundStore;
  runtime: RuntimeHandle;
  runtimeStatus: () => unknown;
}

/** The input contracts of the project the runtime has loaded; null when it is not running. */
export async function runtimeContracts(runtime: RuntimeHandle): Promise<RegistryMetadata['input_contracts'] | null> {
  const base = await runtime.waitReady(2_000);
  if (!base) return null;
  const res = await fetch(`${base}${METADATA_PATH}`, { headers: runtime.controlHeaders(), signal: AbortSignal.timeout(5_000) });
  if (!res.ok) return null;
  return ((await res.json()) as { data: RegistryMetadata }).data.input_contracts;
}

/** The skills' example prompts of an agent card, in the card's order, each text once. */
export function skillExamples(card: unknown): SkillExample[] {
  const skills = (card as { skills?: unknown } | null)?.skills;
  if (!Array.isArray(skills)) return [];
  const out: SkillExample[] = [];
  const seen = new Set<string>();
  for (const skill of skills as { id?: unknown; name?: unknown; examples?: unknown }[]) {
    if (typeof skill?.id !== 'string' || !Array.isArray(skill.examples)) continue;
    for (const text of skill.examples) {
      if (typeof text !== 'string' || !text.trim() || seen.has(text)) continue;
      seen.add(text);
      out.push({ skill_id: skill.id, skill_name: typeof skill.name === 'string' ? skill.name : skill.id, text });
    }
  }
  return out;
}

export function createProjectRoutes(o: ProjectRoutesOptions): Router {
  const router = Router();

  /** GET a JSON document from the ready runtime; any failure is runtime_unavailable. */
  async function fromRuntime<T>(what: string, relative: string, headers: Record<string, string> = {}): Promise<T> {
    const base = await o.runtime.waitReady(5_000);
    if (!base) throw new PlaygroundError('runtime_unavailable', `the runtime is not running, so ${what} cannot be shown`);
    try {
      const upstream = await fetch(`${base}${relative}`, { headers, signal: AbortSignal.timeout(5_000) });
      if (!upstream.ok) throw new Error(`HTTP ${upstream.status}`);
      return (await upstream.json()) as T;
    } catch (err) {
      throw new PlaygroundError('runtime_unavailable', `the runtime did not answer with ${what}: ${(err as Error).message}`);
    }
  }

  router.get('/graph', async (_req, res, next) => {
    try {
      res.json(await fromRuntime('its graph', 'graph'));
    } catch (err) {
      next(err);
    }
  });

  // The contracts of the project the runtime has loaded (the studio never reads or runs
  // the project itself): what a run sent now would be checked against. With them, what the
  // composer suggests: each field's values in earlier successful runs, and the skills'
  // example prompts from the agent card.
  router.get('/composer-schema', async (_req, res, next) => {
    try {
      const body = await fromRuntime<{ data: RegistryMetadata }>('the input contracts of its project', METADATA_PATH, o.runtime.controlHeaders());
      const history = harvestHistory(o.store.recentCompletedInputs(HISTORY_RUNS));
      const card = await fromRuntime<unknown>('its agent card', AGENT_CARD_PATH).catch(() => null);
      const reply: ComposerSchemaReply = {
        contracts: body.data.input_contracts.map((c) => ({ ...c, history: history.get(c.schema) ?? [] })),
        skill_examples: skillExamples(card),
      };
      res.json(reply);
    } catch (err) {
      next(err);
    }
  });

  // The composer's check as the author types (docs/playground-api.md): the same ajv rules
  // the runtime applies, on the contract the runtime has loaded. The studio compiles only the
  // contract's JSON Schema: no project code runs here.
  const checker = new ContractChecker();
  router.post('/composer-schema/validate', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const body = ContractCheckRequestSchema.parse(req.body ?? {});
      const meta = await fromRuntime<{ data: RegistryMetadata }>('the input contracts of its project', METADATA_PATH, o.runtime.controlHeaders());
      const contract = meta.data.input_contracts.find((c) => c.schema === body.schema);
      if (!contract) {
        throw new PlaygroundError('not_found', `the project declares no input contract '${body.schema}'`, { schema: body.schema, contracts: meta.data.input_contracts.map((c) => c.schema) });
      }
      if (!contract.json_schema) {
        res.json({ schema: body.schema, valid: true, checked: false, problems: [] });
        return;
      }
      const problems = checker.check(contract.schema, contract.json_schema, body.data);
      // A schema ajv cannot compile is the runtime's to report (it does not load): not checked here.
      if (problems === null) res.json({ schema: body.schema, valid: true, checked: false, problems: [] });
      else res.json({ schema: body.schema, valid: problems.length === 0, checked: true, problems });
    } catch (err) {
      next(err);
    }
  });

  // spec 4.3: where a node lives in the project's source (ts-morph, in a worker thread).
  router.get('/source-targets/:node_id', async (req, res, next) => {
    try {
      const nodeId = req.params.node_id;
      const found = await o.sources.targets(nodeId);
      if (!found) {
        const nodes = await o.sources.nodeIds().catch(() => []);
        throw new PlaygroundError('not_found', `the graph adds no node '${nodeId}'`, { node_id: nodeId, nodes });
      }
      res.json({ node_id: nodeId, targets: found.targets });
    } catch (err) {
      next(err);
    }
  });

  router.get('/blobs/:sha256', (req, res, next) => {
    const sha = req.params.sha256;
    if (!/^[0-9a-f]{64}$/.test(sha) || !o.blobs.has(sha)) return next(new PlaygroundError('not_found', `no blob ${sha}`));
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-disposition', `attachment; filename="${sha}"`);
    res.send(o.blobs.get(sha));
  });

  router.get('/runtime', (_req, res) => {
    res.json(o.runtimeStatus());
  });

  return router;
}
