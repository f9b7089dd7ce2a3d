// The preload: exposes the typed bridge (src/shared/bridge.ts) as window.agentStudio, one function per
// operation. The renderer never sees ipcRenderer. Runs sandboxed, so it is bundled to one
// CommonJS file (electron.vite.config.ts).
import { contextBridge, ipcRenderer } from 'electron';
import { BridgeError, IPC_CHANNELS, type AgentStudioBridge, type IpcAnswer } from '../shared/bridge.ts';

async function call<T>(channel: string, ...args: unknown[]): Promise<T> {
  const answer = (await ipcRenderer.invoke(channel, ...args)) as IpcAnswer<T>;
  if ('error' in answer) {
    // Rebuild the main-process error. Only the message survives contextBridge, so the code
    // travels in it too ("[CODE] message"); lib/bridge.ts in the renderer reads it back.
    throw new BridgeError(answer.error.code, `[${answer.error.code}] ${answer.error.message}`);
  }
  return answer.result;
}

const bridge: AgentStudioBridge = {
  openProjectFolder: () => call(IPC_CHANNELS.openProjectFolder),
  revealFile: (path) => call(IPC_CHANNELS.revealFile, path),
  openInEditor: (path, line) => call(IPC_CHANNELS.openInEditor, path, line),
};

contextBridge.exposeInMainWorld('agentStudio', bridge);
