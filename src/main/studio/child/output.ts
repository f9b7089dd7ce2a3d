// What the runtime child said on stderr, kept to explain to people why it is not available.

const KEPT_LINES = 30;

export class ChildOutputTail {
  private lines: string[] = [];

  clear(): void {
    this.lines = [];
  }

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  some(test: (line: string) => boolean): boolean {
    return this.lines.some(test);
  }

  /** The last three lines people can read (error-level messages of JSON log lines). */
  summary(): string {
    return this.lines
      .map(plainLine)
      .filter((l): l is string => !!l)
      .slice(-3)
      .join(' | ');
  }
}

/** The runtime logs JSON lines (pino); keep their message for people. */
function plainLine(line: string): string | null {
  const trimmed = line.trim();
  if (!trimmed) return null;
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as { msg?: string; level?: number };
      // errors and worse (pino 50+): a warning is not why a runtime is unavailable
      return parsed.level !== undefined && parsed.level >= 50 && parsed.msg ? parsed.msg : null;
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}
