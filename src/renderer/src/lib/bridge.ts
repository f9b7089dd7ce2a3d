// The Electron bridge when the renderer runs inside the desktop app; null in a browser.
// Errors crossing contextBridge keep only their message; the code is read back from it.
import { BridgeError, type AgentStudioBridge } from '../../../shared/bridge.ts';

function rebuild(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  // Electron prefixes rejected IPC errors with "Error invoking remote method '…': ".
  const m = /\[([A-Z_]+)\] (.*)$/s.exec(message);
  throw m ? new BridgeError(m[1], m[2]) : new BridgeError('INTERNAL', message);
}

let wrapped: AgentStudioBridge | null = null;

export function desktopBridge(): AgentStudioBridge | null {
  if (typeof window === 'undefined' || !window.agentStudio) return null;
  const raw = window.agentStudio;
  wrapped ??= {
    openProjectFolder: () => raw.openProjectFolder().catch(rebuild),
    revealFile: (path) => raw.revealFile(path).catch(rebuild),
    openInEditor: (path, line) => raw.openInEditor(path, line).catch(rebuild),
  };
  return wrapped;
}
