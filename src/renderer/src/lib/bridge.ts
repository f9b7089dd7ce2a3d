// The Electron bridge when the renderer runs inside the desktop app; null in a browser.
import type { AgentStudioBridge } from '../../../preload/api.ts';

export function desktopBridge(): AgentStudioBridge | null {
  return typeof window !== 'undefined' && window.agentStudio ? window.agentStudio : null;
}
