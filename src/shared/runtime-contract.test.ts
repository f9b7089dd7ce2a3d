// The studio <-> runtime contract lines: what one process prints the other must read back.
import { describe, expect, it } from 'vitest';
import { formatDiagnosticsLine, formatReadyLine, parseDiagnosticsLine, parseReadyLine } from './runtime-contract.ts';

describe('runtime contract lines', () => {
  it('reads the URL back from the ready line, and nothing from other lines', () => {
    expect(parseReadyLine(formatReadyLine('support-desk', 'http://127.0.0.1:43123/'))).toBe('http://127.0.0.1:43123/');
    expect(parseReadyLine(`${formatReadyLine('a b', 'http://[::1]:8080/')}\r`)).toBe('http://[::1]:8080/');
    expect(parseReadyLine('{"level":30,"msg":"ready at http://x/"}')).toBeNull();
    expect(parseReadyLine('runtime starting')).toBeNull();
  });

  it('round-trips diagnostics, and ignores lines that only look like them', () => {
    const diagnostics = [{ file: 'src/graph.ts', line: 3, column: 7, message: "Expected ';'" }, { file: 'agent.json', field: 'skills', message: 'must be an array' }];
    expect(parseDiagnosticsLine(formatDiagnosticsLine(diagnostics))).toEqual(diagnostics);
    expect(parseDiagnosticsLine('agent-studio:diagnostics {not json')).toBeNull();
    expect(parseDiagnosticsLine('agent-studio:diagnostics {"diagnostics":[{"file":1}]}')).toEqual([]);
    expect(parseDiagnosticsLine('the project at x is not valid:')).toBeNull();
  });
});
