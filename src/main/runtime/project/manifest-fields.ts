// What each field of agent.json means, in the words a diagnostic uses ("skills[0].description:
// required, a sentence shown to clients"), and how a field's path is written. The format
// itself is documented in docs/project-format.md; keep the two in step.

/** Field path patterns → meaning. `[]` stands for any list index, `*` for any name of a map. */
const MEANINGS: Record<string, string> = {
  name: "the agent's identifier and its name on the agent card",
  description: 'a sentence describing the agent on its agent card',
  version: "the agent's version",
  skills: 'the skills the agent offers on its agent card',
  'skills[]': 'a skill: {id, name, description, tags?, examples?, inputModes?, outputModes?}',
  'skills[].id': "the skill's identifier",
  'skills[].name': "the skill's name shown to clients",
  'skills[].description': 'a sentence shown to clients',
  'skills[].tags': 'keywords for the skill',
  'skills[].tags[]': 'a keyword',
  'skills[].examples': 'example requests for the skill',
  'skills[].examples[]': 'an example request',
  'skills[].inputModes': 'media types the skill accepts, e.g. ["text/plain"]',
  'skills[].outputModes': 'media types the skill answers with, e.g. ["text/plain"]',
  graph: 'where the graph is: {entry, export?, exitNode?, recursionLimit?}',
  'graph.entry': 'the TypeScript file that exports the graph',
  'graph.export': 'the name of the export holding the graph or its factory',
  'graph.exitNode': 'the node whose model output streams',
  'graph.recursionLimit': "LangGraph's limit of super-steps per run",
  inputModes: 'media types the agent accepts, e.g. ["text/plain", "application/json"]',
  outputModes: 'media types the agent answers with, e.g. ["text/plain", "application/json"]',
  inputContracts: 'JSON Schemas for the DataParts the agent accepts',
  'inputContracts[]': 'an input contract: {schema, name?, description?, jsonSchema? or file?}',
  'inputContracts[].schema': 'the id a DataPart names in data.schema',
  'inputContracts[].name': "the contract's tab label in the studio",
  'inputContracts[].description': 'a sentence describing the contract',
  'inputContracts[].jsonSchema': 'the JSON Schema, inline',
  'inputContracts[].file': 'the project file holding the JSON Schema',
  output: "defaults for the agent's answers: {schema?, artifactName?}",
  'output.schema': "the default schema key of the answer's first DataPart",
  'output.artifactName': "the answers' artifact name",
  evaluators: 'the evaluators run on every completed answer, in order',
  'evaluators[]': 'an evaluator: {name, module, export?, timeoutSeconds?, node?, scope?}',
  'evaluators[].name': "the evaluator's identifier",
  'evaluators[].module': 'the project file exporting the evaluator',
  'evaluators[].export': 'the name of the exported evaluator function',
  'evaluators[].timeoutSeconds': 'seconds before the evaluation is abandoned (null for no limit)',
  'evaluators[].node': 'the node the evaluation is about',
  'evaluators[].scope': 'what the evaluation scores, e.g. "answer"',
  model: 'settings of the model client: {temperature?, timeoutSeconds?, maxRetries?, maxTokens?}',
  'model.temperature': "the model's sampling temperature (0 to 2)",
  'model.timeoutSeconds': 'seconds before a model call times out',
  'model.maxRetries': 'retries of a failed model call (0 to 10)',
  'model.maxTokens': 'the most tokens one answer may use',
  memory: 'the starting memory configuration: {enabled, windowSize, summarize, summarizeThreshold}',
  'memory.enabled': 'whether threads remember earlier messages',
  'memory.windowSize': 'how many recent messages the graph sees',
  'memory.summarize': 'whether older messages are summarised',
  'memory.summarizeThreshold': 'how many messages a thread holds before it is summarised',
  errorCatalogue: 'domain error codes: code → {code, reason, title, retriable?}',
  'errorCatalogue.*': 'a domain error: {code, reason, title, retriable?}',
  'errorCatalogue.*.code': 'the standard error code it maps to',
  'errorCatalogue.*.reason': 'a machine-readable reason',
  'errorCatalogue.*.title': 'the message shown to clients',
  'errorCatalogue.*.retriable': 'whether the client may try again',
  mcpServers: 'the MCP servers whose tools the graph may call',
  'mcpServers[]': 'an MCP server: {name, transport: "stdio", command, args?, env?, cwd?} or {name, transport: "http", url, headers?}',
  'mcpServers[].name': "the server's identifier",
  'mcpServers[].transport': 'how the server is reached',
  'mcpServers[].command': 'the command that starts the server',
  'mcpServers[].args': "the command's arguments",
  'mcpServers[].env': "environment variables for the server's process",
  'mcpServers[].cwd': "the server process's working folder in the project",
  'mcpServers[].url': "the server's URL",
  'mcpServers[].headers': 'HTTP headers sent to the server',
  prompts: 'prompt name → project file',
  'prompts.*': "the project file holding the prompt's text",
  runOptions: 'request-metadata fields the composer shows: name → {type, default?, description?, min?, max?}',
  'runOptions.*': 'a run option: {type, default?, description?, min?, max?}',
  'runOptions.*.type': 'the type of its value: "integer", "number", "string" or "boolean"',
  'runOptions.*.default': 'the value the composer starts from',
  'runOptions.*.description': 'a sentence shown beside the field',
  'runOptions.*.min': 'the smallest value allowed',
  'runOptions.*.max': 'the largest value allowed',
  budget: 'the most a run may use: {maxTokens?, maxCostUsd?}; a run over it fails after the call that crossed it',
  'budget.maxTokens': 'the most tokens (input and output) the model calls of one run may use',
  'budget.maxCostUsd': 'the most the model calls of one run may cost, in US dollars',
  pricing: 'model prices over the defaults: model name → {input, output, cachedInput?, cacheWrite?} in USD per million tokens',
  'pricing.*': "a model's prices: {input, output, cachedInput?, cacheWrite?} in USD per million tokens",
  'pricing.*.input': 'USD per million prompt tokens',
  'pricing.*.output': 'USD per million completion tokens',
  'pricing.*.cachedInput': 'USD per million prompt tokens read from the cache (default: input)',
  'pricing.*.cacheWrite': 'USD per million prompt tokens written to the cache (default: input)',
};

type Segment = string | number;

/** `skills[0].description`; `(root)` for the manifest itself. */
export function formatFieldPath(path: readonly Segment[]): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out || '(root)';
}

/** Tokens of a pattern (`errorCatalogue.*.code` → errorCatalogue, *, code). */
function patternTokens(pattern: string): string[] {
  return pattern.match(/\[\]|[^.[\]]+/g) ?? [];
}

function matches(pattern: string[], path: readonly Segment[]): boolean {
  return pattern.length === path.length && pattern.every((token, i) => (typeof path[i] === 'number' ? token === '[]' : token === '*' || token === path[i]));
}

const PATTERNS = Object.entries(MEANINGS).map(([pattern, meaning]) => ({ tokens: patternTokens(pattern), meaning }));

/** What the field at `path` is for, if the table knows it. An exact name wins over `*`. */
export function fieldMeaning(path: readonly Segment[]): string | undefined {
  const found = PATTERNS.filter((p) => matches(p.tokens, path));
  return (found.find((p) => !p.tokens.includes('*')) ?? found[0])?.meaning;
}
