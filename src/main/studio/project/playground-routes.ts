// The open project's views under /api/playground/v1 (spec 4.3): the runtime's graph, the
// declared input contracts for the composer and the check of a composed input, where a
// node lives in the source, stored file blobs, and the runtime's state. What comes from the
// runtime is read through the RuntimeClient; the studio never reads or runs project code.
import { Router } from 'express';
import type { BlobStore } from '../../playground/store/blobs.ts';
import { PlaygroundError } from '../../playground/errors.ts';
import type { PlaygroundStore } from '../../playground/store/store.ts';
import { harvestHistory } from '../../playground/suggestions.ts';
import { HISTORY_RUNS, type SkillExample } from '../../../shared/suggestions.ts';
import type { InputContractInfo } from '../../../shared/runtime-contract.ts';
import { ContractChecker } from '../../../shared/contracts.ts';
import { ContractCheckRequestSchema, type ComposerSchemaReply } from '../../../shared/composer-schema.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { SourceAnalysis } from '../source/client.ts';
import type { Fetched, RuntimeClient } from '../child/client.ts';
import type { RuntimeStatusReply } from '../../../shared/studio-api.ts';

/** How long a view waits for a starting runtime. */
const VIEW_WAIT_MS = 5_000;

export interface ProjectPlaygroundRoutesOptions {
  sources: SourceAnalysis;
  blobs: BlobStore;
  store: PlaygroundStore;
  runtime: RuntimeClient;
  runtimeStatus: () => RuntimeStatusReply;
}

/** The input contracts of the project the runtime has loaded; null when it is not running
 * or does not answer. */
export async function runtimeContracts(runtime: RuntimeClient): Promise<InputContractInfo[] | null> {
  const meta = await runtime.metadata(2_000);
  return meta.ok ? meta.value.input_contracts : null;
}

/** A document from the runtime, or runtime_unavailable saying why it cannot be shown. */
function shown<T>(what: string, fetched: Fetched<T>): T {
  if (fetched.ok) return fetched.value;
  if (fetched.reason === 'not_running') throw new PlaygroundError('runtime_unavailable', `the runtime is not running, so ${what} cannot be shown`);
  throw new PlaygroundError('runtime_unavailable', `the runtime did not answer with ${what}: ${fetched.detail}`);
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

export function createProjectPlaygroundRoutes(o: ProjectPlaygroundRoutesOptions): Router {
  const router = Router();
  const contractsWhat = 'the input contracts of its project';

  router.get('/graph', async (_req, res, next) => {
    try {
      res.json(shown('its graph', await o.runtime.graph(VIEW_WAIT_MS)));
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
      const meta = shown(contractsWhat, await o.runtime.metadata(VIEW_WAIT_MS));
      const history = harvestHistory(o.store.recentCompletedInputs(HISTORY_RUNS));
      const card = await o.runtime.agentCard(VIEW_WAIT_MS);
      const reply: ComposerSchemaReply = {
        contracts: meta.input_contracts.map((c) => ({ ...c, history: history.get(c.schema) ?? [] })),
        run_options: meta.run_options,
        skill_examples: skillExamples(card.ok ? card.value : null),
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
      const meta = shown(contractsWhat, await o.runtime.metadata(VIEW_WAIT_MS));
      const contract = meta.input_contracts.find((c) => c.schema === body.schema);
      if (!contract) {
        throw new PlaygroundError('not_found', `the project declares no input contract '${body.schema}'`, {
          schema: body.schema,
          contracts: meta.input_contracts.map((c) => c.schema),
        });
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
