// The Playground router's request schemas: the shared ones (src/shared/playground-requests.ts,
// compare.ts), with the server's own rule added where a check needs the server: each changed
// file must be a project-relative path (spec 4.3; src/main/playground/paths.ts).
import { z } from 'zod';
import { CreateRunSchema as SharedCreateRunSchema } from '../../../shared/playground-requests.ts';
import { changedFileProblem } from '../paths.ts';

export {
  CreateSessionSchema,
  ListQuerySchema,
  RenameSessionSchema,
  RerunSchema,
  ResumeSchema,
  SeqSchema,
  TranscriptQuerySchema,
  type CreateRunBody as ParsedCreateRun,
} from '../../../shared/playground-requests.ts';
export { CompareOptionsSchema, CompareQuerySchema } from '../../../shared/compare.ts';

const changedFile = z.string().superRefine((p, ctx) => {
  const problem = changedFileProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: `changed file '${p}' ${problem} (project-relative paths only)` });
});

export const CreateRunSchema = SharedCreateRunSchema.extend({
  changed_files: z.array(changedFile).max(1000).optional(),
});
