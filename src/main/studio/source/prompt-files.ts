// The manifest's prompt files (docs/project-format.md, `prompts`) as the source of a recorded
// message's text, and writing an edited message back to one (docs/playground-api.md,
// "Playground for one call"; D-105). The runtime hands `ctx.prompts[name]` to the graph as the
// file's text read as it is (runtime/project/loader.ts: no trim, no line-ending change), so a
// message holds a prompt file when it holds that text exactly. Project code is never run: the
// manifest is read as JSON.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { PromptFileMatch } from '../../../shared/call-playground.ts';
import { sha256 } from './analysis.ts';

const MANIFEST = 'agent.json';

/** The manifest's prompts: name → project-relative path ({} when the manifest is unreadable). */
export async function manifestPrompts(projectDir: string): Promise<Record<string, string>> {
  const text = await fs.readFile(path.join(projectDir, MANIFEST), 'utf8').catch(() => null);
  if (text === null) return {};
  try {
    const prompts = (JSON.parse(text) as { prompts?: unknown }).prompts;
    if (!prompts || typeof prompts !== 'object' || Array.isArray(prompts)) return {};
    return Object.fromEntries(Object.entries(prompts).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length > 0));
  } catch {
    return {};
  }
}

/** Same file, however the manifest spells its path (`./prompts/a.md`, `prompts\\a.md`). */
export function samePath(a: string, b: string): boolean {
  const norm = (p: string) => path.posix.normalize(p.split('\\').join('/'));
  return norm(a) === norm(b);
}

/** Each prompt file whose (non-empty) text the message `text` holds, with where it starts and
 * ends in `text` (its first occurrence). */
export async function findPromptFiles(projectDir: string, text: string): Promise<PromptFileMatch[]> {
  const found: PromptFileMatch[] = [];
  for (const [name, rel] of Object.entries(await manifestPrompts(projectDir))) {
    const abs = path.resolve(projectDir, rel);
    if (path.relative(projectDir, abs).startsWith('..')) continue;
    const content = await fs.readFile(abs, 'utf8').catch(() => null);
    if (!content) continue;
    const start = text.indexOf(content);
    if (start < 0) continue;
    found.push({
      kind: 'prompt_file',
      name,
      path: path.posix.normalize(rel.split('\\').join('/')),
      start,
      end: start + content.length,
      sha256: sha256(content),
    });
  }
  return found;
}

export type PromptEdit = { ok: true; content: string } | { ok: false; reason: 'not_in_message' | 'outside' };

/** The prompt file's new text when `edited` keeps the text of `original` before and after the
 * file's `content` as it was: the edited middle part. An edit that touches text outside the
 * file's part (which the code adds around the prompt) is refused, never applied in part. */
export function editedPromptFile(original: string, edited: string, content: string): PromptEdit {
  if (!content || !original.includes(content)) return { ok: false, reason: 'not_in_message' };
  for (let at = original.indexOf(content); at >= 0; at = original.indexOf(content, at + 1)) {
    const before = original.slice(0, at);
    const after = original.slice(at + content.length);
    if (edited.length >= before.length + after.length && edited.startsWith(before) && edited.endsWith(after)) {
      return { ok: true, content: edited.slice(before.length, edited.length - after.length) };
    }
  }
  return { ok: false, reason: 'outside' };
}
