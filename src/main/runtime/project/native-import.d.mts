export function nativeImport(url: string): Promise<Record<string, unknown>>;
