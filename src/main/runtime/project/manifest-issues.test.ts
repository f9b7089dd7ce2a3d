import { describe, expect, it } from 'vitest';
import { ManifestSchema } from './manifest.ts';
import { manifestProblems } from './manifest-issues.ts';

const VALID = {
  name: 'my-agent',
  description: 'Answers questions.',
  version: '1.0.0',
  skills: [{ id: 'answer', name: 'Answer', description: 'Answers a question.' }],
  graph: { entry: 'src/graph.ts' },
};

/** `path: message` lines for the manifest's problems. */
function problems(manifest: unknown): string[] {
  const parsed = ManifestSchema.safeParse(manifest);
  if (parsed.success) return [];
  return manifestProblems(ManifestSchema, parsed.error.issues, manifest).map((p) => `${p.path.join('.')}: ${p.message}`);
}

describe('manifestProblems', () => {
  it('accepts a valid manifest', () => {
    expect(problems(VALID)).toEqual([]);
  });

  it("says what a required field is for (the issue's own example)", () => {
    const skill: Record<string, unknown> = { ...VALID.skills[0] };
    delete skill.description;
    expect(problems({ ...VALID, skills: [skill] })).toEqual(['skills.0.description: required, a sentence shown to clients']);
  });

  it('names an unknown key with the nearest valid key, at any depth', () => {
    expect(
      problems({
        ...VALID,
        inputMode: ['text/plain'],
        skills: [{ ...VALID.skills[0], inputMode: [] }],
        graph: { entry: 'src/graph.ts', exitNdoe: 'respond' },
        memory: { windowSize: 10, sumarize: true },
        model: { temprature: 0 },
        evaluators: [{ name: 'e', module: 'src/e.ts', timeoutSecond: 3 }],
        output: { schem: 'x/1' },
      }),
    ).toEqual([
      "skills.0.inputMode: unknown key 'inputMode': did you mean 'inputModes'?",
      "graph.exitNdoe: unknown key 'exitNdoe': did you mean 'exitNode'?",
      "output.schem: unknown key 'schem': did you mean 'schema'?",
      "evaluators.0.timeoutSecond: unknown key 'timeoutSecond': did you mean 'timeoutSeconds'?",
      "model.temprature: unknown key 'temprature': did you mean 'temperature'?",
      "memory.sumarize: unknown key 'sumarize': did you mean 'summarize'?",
      "inputMode: unknown key 'inputMode': did you mean 'inputModes'?",
    ]);
  });

  it('lists the valid keys when no key is close', () => {
    expect(problems({ ...VALID, model: { flavour: 'mild' } })).toEqual([
      "model.flavour: unknown key 'flavour' (valid keys: temperature, timeoutSeconds, maxRetries, maxTokens)",
    ]);
  });

  it('suggests keys of the MCP server transport the entry names', () => {
    expect(problems({ ...VALID, mcpServers: [{ name: 'web', transport: 'http', url: 'http://127.0.0.1:9/mcp', header: {} }] })).toEqual([
      "mcpServers.0.header: unknown key 'header': did you mean 'headers'?",
    ]);
    expect(problems({ ...VALID, mcpServers: [{ name: 'tools', transport: 'stdio', command: 'node', arg: [] }] })).toEqual([
      "mcpServers.0.arg: unknown key 'arg': did you mean 'args'?",
    ]);
  });

  it('rewrites type, size, format and choice problems into the field meaning', () => {
    expect(
      problems({
        ...VALID,
        name: 'my agent',
        version: '1.0',
        skills: [{ id: 'answer', name: '', description: 'x', tags: 'faq' }],
        graph: { entry: '../graph.ts', recursionLimit: 2.5 },
        model: { temperature: 3, maxRetries: 1 },
        memory: { enabled: 'yes' },
        mcpServers: [
          { name: 'a', transport: 'stdo' },
          { name: 'b', transport: 'http', url: 'nope' },
          { name: 'c', command: 'node' },
        ],
        errorCatalogue: { 'bad code!': { code: 'NOT_FOUND', reason: 'r', title: 'Not found' } },
      }),
    ).toEqual([
      "name: must be an identifier (letters, digits, _ . : / -), the agent's identifier and its name on the agent card",
      "version: must be a semantic version like 1.0.0, the agent's version",
      "skills.0.name: must not be empty, the skill's name shown to clients",
      'skills.0.tags: must be a list [...] (not a string), keywords for the skill',
      'graph.entry: must be a path inside the project folder (relative, without ..), the TypeScript file that exports the graph',
      "graph.recursionLimit: must be a whole number, LangGraph's limit of super-steps per run",
      "model.temperature: must be at most 2, the model's sampling temperature (0 to 2)",
      'memory.enabled: must be true or false (not a string), whether threads remember earlier messages',
      "errorCatalogue.bad code!: the name 'bad code!' must be letters, digits, _ . -",
      'mcpServers.0.transport: must be "stdio" or "http", how the server is reached',
      "mcpServers.1.url: must be a URL like https://host/path, the server's URL",
      'mcpServers.2.transport: required, how the server is reached',
    ]);
  });

  it('keeps a custom message and describes lists and the root', () => {
    expect(problems({ ...VALID, skills: [] })).toEqual(['skills: declare at least one skill, the skills the agent offers on its agent card']);
    expect(problems([])).toEqual([': must be an object {...} (not a list)']);
  });

  it('falls back to a cleaned-up zod message for a field the table does not know', () => {
    expect(problems({ ...VALID, mcpServers: [{ name: 'a', transport: 'stdio', command: 'node', env: { A: 1 } }] })).toEqual([
      'mcpServers.0.env.A: must be a string (not a whole number)',
    ]);
  });

  it('accepts run options and checks each strictly, with its field path', () => {
    const pace = {
      scriptedDelayMs: { type: 'integer', default: 20, min: 0, max: 5000, description: 'Delay before each chunk' },
      tone: { type: 'string', default: 'friendly' },
      verbose: { type: 'boolean' },
    };
    expect(problems({ ...VALID, runOptions: pace })).toEqual([]);
    expect(ManifestSchema.parse(VALID).runOptions).toEqual({});
    expect(
      problems({
        ...VALID,
        runOptions: {
          a: { type: 'integer', default: 2.5 },
          b: { type: 'number', min: 10, max: 1, default: 5 },
          c: { type: 'string', min: 1 },
          d: { type: 'float' },
          e: { type: 'boolean', default: 'yes' },
          f: { type: 'integer', default: 9, max: 8 },
          g: { type: 'number', deflt: 1 },
        },
      }),
    ).toEqual([
      "runOptions.a.default: must be a whole number, as the option's type is integer, the value the composer starts from",
      'runOptions.b.max: must be at least min (10), the largest value allowed',
      'runOptions.c.min: only an integer or number option has a min, the smallest value allowed',
      'runOptions.d.type: must be one of "integer", "number", "string", "boolean", the type of its value: "integer", "number", "string" or "boolean"',
      "runOptions.e.default: must be a boolean, as the option's type is boolean, the value the composer starts from",
      'runOptions.f.default: must be at most max (8), the value the composer starts from',
      "runOptions.g.deflt: unknown key 'deflt': did you mean 'default'?",
    ]);
  });

  it('rejects a run option named like the reserved capture key or not like a metadata key', () => {
    const out = problems({ ...VALID, runOptions: { 'svc.playground': { type: 'string' }, '9lives': { type: 'string' } } });
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^runOptions\.svc\.playground: the name 'svc\.playground' is reserved for the studio/);
    expect(out[1]).toMatch(/^runOptions\.9lives: the name '9lives' must start with a letter/);
  });

  it('reads a budget and prices, and names what is wrong with them', () => {
    expect(problems({ ...VALID, budget: { maxTokens: 5000, maxCostUsd: 0.05 }, pricing: { 'my-model': { input: 1, output: 2 } } })).toEqual([]);
    expect(
      problems({
        ...VALID,
        budget: { maxTokens: 2.5, maxCost: 1 },
        pricing: { 'my-model': { input: -1, output: 2, cached: 1 } },
      }),
    ).toEqual([
      'budget.maxTokens: must be a whole number, the most tokens (input and output) the model calls of one run may use',
      "budget.maxCost: unknown key 'maxCost': did you mean 'maxCostUsd'?",
      'pricing.my-model.input: must be at least 0, USD per million prompt tokens',
      "pricing.my-model.cached: unknown key 'cached' (valid keys: input, output, cachedInput, cacheWrite)",
    ]);
    expect(problems({ ...VALID, budget: {} })).toEqual([
      'budget: give maxTokens, maxCostUsd or both, the most a run may use: {maxTokens?, maxCostUsd?}; a run over it fails after the call that crossed it',
    ]);
  });
});
