// The model settings an experiment records, and the LLM judge of `llm_judge` assertions
// (docs/evaluation.md). The runtime child's model is an OpenAI-compatible endpoint when
// OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL are set (the project's .env, then the
// environment the studio gives the child, which wins: src/sdk/model.ts); otherwise the
// offline scripted model, which cannot judge. The judge is called from the studio main
// process, never from project code; the key is sent to that endpoint only, never stored.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import type { ModelSettings } from '../../../shared/experiments.ts';
import { outputText, type CaseOutcome, type Judge } from '../evals/assertions.ts';

export interface ModelEnv {
  baseUrl: string | null;
  apiKey: string | null;
  model: string | null;
}

export function modelEnv(projectDir: string, env: NodeJS.ProcessEnv = process.env): ModelEnv {
  let file: Record<string, string> = {};
  try {
    file = parseDotenv(fs.readFileSync(path.join(projectDir, '.env')));
  } catch {
    // no .env: the environment alone
  }
  const get = (k: string) => env[k] || file[k] || null;
  return { baseUrl: get('OPENAI_BASE_URL'), apiKey: get('OPENAI_API_KEY'), model: get('OPENAI_MODEL') };
}

const real = (m: ModelEnv) => Boolean(m.baseUrl && m.apiKey && m.model);

/** What the experiment records: provider, model and the endpoint's host, never the key. */
export function modelSettings(m: ModelEnv): ModelSettings {
  if (!real(m)) return { provider: 'scripted', model: null, base_url_host: null, real: false };
  let host: string | null = null;
  try {
    host = new URL(m.baseUrl!).host;
  } catch {
    host = null;
  }
  return { provider: 'openai-compatible', model: m.model, base_url_host: host, real: true };
}

const SYSTEM = ["You grade an AI agent's answer against a rubric.", 'Reply with JSON only: {"score": <number from 0 to 1>, "reason": "<one sentence>"}.'].join(
  ' ',
);

/** Reads `{"score", "reason"}` from the judge's reply (the first JSON object in it). */
export function parseVerdict(content: string): { score: number; reason: string } {
  const m = /\{[\s\S]*\}/.exec(content);
  if (!m) throw new Error(`the judge did not answer JSON: ${content.slice(0, 120)}`);
  const v = JSON.parse(m[0]) as { score?: unknown; reason?: unknown };
  const score = Number(v.score);
  if (!Number.isFinite(score) || score < 0 || score > 1) throw new Error(`the judge's score is not a number from 0 to 1: ${String(v.score)}`);
  return { score, reason: typeof v.reason === 'string' ? v.reason : '' };
}

/** The judge on the configured model, or null when only the scripted model is configured. */
export function createJudge(m: ModelEnv, timeoutMs = 30_000): Judge | null {
  if (!real(m)) return null;
  const url = `${m.baseUrl!.replace(/\/+$/, '')}/chat/completions`;
  return async (rubric: string, outcome: CaseOutcome) => {
    const answer = outputText(outcome.output_parts);
    const data = outcome.output_parts.filter((p) => p.kind === 'data').map((p) => JSON.stringify((p as { data: unknown }).data));
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}` },
      body: JSON.stringify({
        model: m.model,
        temperature: 0,
        stream: false,
        messages: [
          { role: 'system', content: SYSTEM },
          {
            role: 'user',
            content: `Rubric:\n${rubric}\n\nThe run ended ${outcome.status}.\nAnswer:\n${answer}${data.length ? `\n\nData:\n${data.join('\n')}` : ''}`,
          },
        ],
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`the judge's endpoint answered HTTP ${res.status}`);
    const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    return parseVerdict(body.choices?.[0]?.message?.content ?? '');
  };
}
