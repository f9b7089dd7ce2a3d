// Renderer-side shapes for the endpoints whose bodies the spec leaves open (spec 4.3 gaps):
// the composer's input contracts and the runtime graph. Parsed defensively: the renderer
// must keep working when the server adds fields or is an older build.

/** A declared input contract (the project's `inputContracts`), as offered to the composer. */import type { FieldHistory, SkillExample } from '../../../shared/suggestions.ts';

export interface InputContract {
  /** The id that goes into `data.schema` (spec 2.6). */
  schema: string;
  /** Only a tab label in the composer; never sent (spec 2.6). */
  name: string;
  description?: string;
  jsonSchema?: Record<string, unknown>;
  /** The values each field held in the project's earlier successful runs. */
  history: FieldHistory[];
}

/** GET /composer-schema: the contracts and the agent card's skill examples. */
export interface ComposerSchema {
  contracts: InputContract[];
  skillExamples: SkillExample[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Accepts `{contracts|input_contracts|inputContracts: [...]}` or a bare array. */
export function normaliseContracts(body: unknown): InputContract[] {
  const list = Array.isArray(body)
    ? body
    : isRecord(body)
      ? ((body.contracts ?? body.input_contracts ?? body.inputContracts ?? []) as unknown[])
      : [];
  if (!Array.isArray(list)) return [];
  const out: InputContract[] = [];
  for (const item of list) {
    if (!isRecord(item)) continue;
    const schema = typeof item.schema === 'string' ? item.schema : typeof item.id === 'string' ? item.id : null;
    if (!schema) continue;
    const js = item.json_schema ?? item.jsonSchema;
    out.push({
      schema,
      name: typeof item.name === 'string' && item.name ? item.name : typeof item.label === 'string' ? item.label : schema,
      description: typeof item.description === 'string' ? item.description : undefined,
      jsonSchema: isRecord(js) ? js : undefined,
      history: Array.isArray(item.history)
        ? (item.history as unknown[]).filter((h): h is FieldHistory => isRecord(h) && typeof h.pointer === 'string' && Array.isArray(h.values))
        : [],
    });
  }
  return out;
}

export interface GraphNode {
  id: string;
  label: string;
  kind: 'start' | 'end' | 'node';
  exit?: boolean;
}

export interface GraphEdge {
  source: string;
  target: string;
  conditional: boolean;
  label?: string;
}

export interface AgentGraph {
  agent?: string;
  generation?: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export function normaliseGraph(body: unknown): AgentGraph {
  if (!isRecord(body) || !Array.isArray(body.nodes) || !Array.isArray(body.edges)) {
    throw new Error('The studio answered /graph with something that is not a graph.');
  }
  const nodes: GraphNode[] = body.nodes.filter(isRecord).map((n) => {
    const id = String(n.id);
    const kind = n.kind === 'start' || n.kind === 'end' ? n.kind : 'node';
    return { id, label: typeof n.label === 'string' ? n.label : id, kind, exit: n.exit === true };
  });
  const ids = new Set(nodes.map((n) => n.id));
  const edges: GraphEdge[] = body.edges
    .filter(isRecord)
    .map((e) => ({
      source: String(e.source),
      target: String(e.target),
      conditional: e.conditional === true,
      ...(typeof e.label === 'string' && e.label ? { label: e.label } : {}),
    }))
    .filter((e) => ids.has(e.source) && ids.has(e.target));
  return {
    agent: typeof body.agent === 'string' ? body.agent : undefined,
    generation: typeof body.generation === 'number' ? body.generation : undefined,
    nodes,
    edges,
  };
}

export function normaliseComposerSchema(body: unknown): ComposerSchema {
  const raw = isRecord(body) && Array.isArray(body.skill_examples) ? (body.skill_examples as unknown[]) : [];
  const skillExamples = raw.filter(
    (e): e is SkillExample => isRecord(e) && typeof e.text === 'string' && typeof e.skill_id === 'string' && typeof e.skill_name === 'string',
  );
  return { contracts: normaliseContracts(body), skillExamples };
}
