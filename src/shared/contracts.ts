// Input contract checking (spec 2.6): one ajv setup and one way of describing its errors,
// used by the runtime before the graph runs and by the studio's composer as the author
// types (through the studio's main process: the renderer's CSP forbids the code generation
// ajv compiles schemas with). Same options, same messages, on both sides.
// The problems it finds cross to the renderer in the POST /composer-schema/validate reply,
// whose schema (ContractProblemSchema) is in composer-schema.ts.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { ContractProblem } from './composer-schema.ts';

export type { ContractProblem };

export function createContractAjv(): Ajv {
  return new Ajv({ allErrors: true, strict: false });
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** ajv's errors as problems a person can act on: where, what, and for an enum what is allowed. */
export function describeContractErrors(errors: readonly ErrorObject[] | null | undefined): ContractProblem[] {
  const out: ContractProblem[] = [];
  for (const e of errors ?? []) {
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'required') {
      out.push({ path: `${e.instancePath}/${String(params.missingProperty)}`, message: `is required` });
    } else if (e.keyword === 'additionalProperties') {
      out.push({ path: `${e.instancePath}/${String(params.additionalProperty)}`, message: 'is not allowed by the contract' });
    } else if (e.keyword === 'enum') {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      out.push({ path: e.instancePath, message: `must be one of: ${allowed.map(show).join(', ')}`, allowed });
    } else if (e.keyword === 'const') {
      out.push({ path: e.instancePath, message: `must be ${show(params.allowedValue)}`, allowed: [params.allowedValue] });
    } else {
      out.push({ path: e.instancePath, message: e.message ?? e.keyword });
    }
  }
  return out;
}

/** One line per problem: `/topic must be one of: refund, order_status`. */
export function contractProblemsText(problems: readonly ContractProblem[]): string {
  return problems.map((p) => `${p.path || '(the part)'} ${p.message}`).join('; ');
}

/** Compiled validators by contract id, recompiled when the schema changes. Each schema gets
 * its own ajv, so an edited schema that keeps its `$id` compiles again. */
export class ContractChecker {
  private readonly compiled = new Map<string, { key: string; validate: ValidateFunction | null }>();

  /** The problems of `data`, or null when the contract's schema does not compile. */
  check(schemaId: string, jsonSchema: Record<string, unknown>, data: unknown): ContractProblem[] | null {
    const key = JSON.stringify(jsonSchema);
    let entry = this.compiled.get(schemaId);
    if (!entry || entry.key !== key) {
      let validate: ValidateFunction | null = null;
      try {
        validate = createContractAjv().compile(jsonSchema);
      } catch {
        validate = null;
      }
      entry = { key, validate };
      this.compiled.set(schemaId, entry);
    }
    if (!entry.validate) return null;
    return entry.validate(data) ? [] : describeContractErrors(entry.validate.errors);
  }
}
