import { describe, expect, it } from 'vitest';
import { appendCase, datasetNameOf, freshCaseId, parseDataset } from './dataset-file.ts';

const header = '{"dataset":{"description":"Refund questions"}}';
const one = '{"id":"refund-ok","input":{"text":"I want a refund for ORD-12345"},"expected":{"assertions":[{"type":"text_contains","value":"approved"}]}}';

describe('dataset files', () => {
  it('reads the header and the cases in order, with the content hash as version', () => {
    const text = `${header}\n${one}\n\n{"id":"second","input":{"parts":[{"kind":"data","data":{"schema":"x/1"}}]}}\n`;
    const d = parseDataset('refunds', text);
    expect(d).toMatchObject({ name: 'refunds', file: 'evals/refunds.jsonl', description: 'Refund questions', diagnostics: [] });
    expect(d.cases.map((c) => c.id)).toEqual(['refund-ok', 'second']);
    expect(d.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(parseDataset('refunds', `${text} `).hash).not.toBe(d.hash);
  });

  it('gives a diagnostic with file, line and column for broken JSON, and keeps the other cases', () => {
    const d = parseDataset('x', `${one}\n{"id": "b", "input": {"text": }\n`);
    expect(d.cases.map((c) => c.id)).toEqual(['refund-ok']);
    expect(d.diagnostics).toEqual([{ file: 'evals/x.jsonl', line: 2, column: 31, message: 'not valid JSON: ValueExpected' }]);
  });

  it('names the field of a case that does not fit the format', () => {
    const d = parseDataset(
      'x',
      '{"id":"a","input":{"text":"hi"},"expected":{"assertions":[{"type":"text_contains"}]}}\n{"id":"b","input":{}}\n{"id":"c","inpt":{"text":"x"}}',
    );
    expect(d.cases).toEqual([]);
    expect(d.diagnostics.map((x) => [x.line, x.field])).toEqual([
      [1, 'expected.assertions[0].value'],
      [2, 'input'],
      [3, 'input'],
      [3, undefined],
    ]);
    expect(d.diagnostics[1]!.message).toBe('input: give either "text" or "parts"');
  });

  it('refuses a repeated case id and a header that is not first, naming the line', () => {
    const d = parseDataset('x', `${one}\n${header}\n${one}`);
    expect(d.cases).toHaveLength(1);
    expect(d.diagnostics.map((x) => x.message)).toEqual([
      'the {"dataset": ...} line must be the first line of the file',
      'case id "refund-ok" is already used on line 1',
    ]);
    expect(parseDataset('x', '[1,2]').diagnostics[0]!.message).toContain('each line is one JSON object');
  });

  it('appends a case as one line that reads back the same', () => {
    const text = appendCase(`${header}\n${one}`, {
      id: 'new',
      input: { text: 'where is ORD-23456?' },
      expected: { output: { status: 'completed', parts: [{ kind: 'text', text: 'shipped' }] } },
    });
    const d = parseDataset('x', text);
    expect(d.diagnostics).toEqual([]);
    expect(d.cases[1]).toEqual({
      id: 'new',
      input: { text: 'where is ORD-23456?' },
      expected: { output: { status: 'completed', parts: [{ kind: 'text', text: 'shipped' }] } },
    });
    expect(text.endsWith('\n')).toBe(true);
  });

  it('makes case ids from text, never reusing one', () => {
    const cases = [{ id: 'where-is-my-order', input: { text: 'x' } }];
    expect(freshCaseId('Where is my order?', cases)).toBe('where-is-my-order-2');
    expect(freshCaseId('!!!', [])).toBe('case');
  });

  it('knows a dataset file by its path', () => {
    expect(datasetNameOf('evals/support.jsonl')).toBe('support');
    expect(datasetNameOf('evals/sub/x.jsonl')).toBeNull();
    expect(datasetNameOf('src/evals.jsonl')).toBeNull();
  });
});
