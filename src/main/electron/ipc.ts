// IPC handlers of the preload bridge (src/shared/bridge.ts). Each answers `{result}` or
// `{error}`; the preload rebuilds the error (a thrown error would lose everything but its
// message crossing IPC). Only the studio's own page may call them.
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_CHANNELS, type BridgeErrorShape, type IpcAnswer, type OpenedProject } from '../../shared/bridge.ts';
import { OperationError } from './policy.ts';
import { isAppUrl } from './security.ts';

export { OperationError };

function toShape(err: unknown): BridgeErrorShape {
  if (err instanceof OperationError) return { name: 'BridgeError', code: err.code, message: err.message };
  return { name: 'BridgeError', code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}

function handle<A extends unknown[], T>(channel: string, fn: (...args: A) => Promise<T>): void {
  ipcMain.handle(channel, async (event: IpcMainInvokeEvent, ...args: unknown[]): Promise<IpcAnswer<T>> => {
    if (!event.senderFrame || !isAppUrl(event.senderFrame.url)) {
      return { error: { name: 'BridgeError', code: 'FORBIDDEN', message: 'This page may not use the studio bridge.' } };
    }
    try {
      return { result: await fn(...(args as A)) };
    } catch (err) {
      return { error: toShape(err) };
    }
  });
}

export interface BridgeOperations {
  openProjectFolder(): Promise<OpenedProject | null>;
  revealFile(path: string): Promise<void>;
  openInEditor(path: string, line?: number): Promise<void>;
}

function requireString(v: unknown, name: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 4096) throw new OperationError('INVALID_ARGUMENT', `${name} must be a non-empty string`);
  return v;
}

export function registerIpcHandlers(ops: BridgeOperations): void {
  handle(IPC_CHANNELS.openProjectFolder, () => ops.openProjectFolder());
  handle(IPC_CHANNELS.revealFile, (path: unknown) => ops.revealFile(requireString(path, 'path')));
  handle(IPC_CHANNELS.openInEditor, (path: unknown, line: unknown) =>
    ops.openInEditor(requireString(path, 'path'), typeof line === 'number' && Number.isInteger(line) && line > 0 ? line : undefined),
  );
}
