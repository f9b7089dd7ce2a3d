// The typed bridge between the Electron main process and the renderer: one function per
// operation, exposed as `window.agentStudio` by src/preload/index.ts. This file has no
// Electron import, so the renderer (tsconfig.web.json) and main share the same types.

/** IPC channel names, one per operation. */
export const IPC_CHANNELS = {
  openProjectFolder: 'agent-studio:open-project-folder',
  revealFile: 'agent-studio:reveal-file',
  openInEditor: 'agent-studio:open-in-editor',
} as const;

export interface OpenedProject {
  /** Absolute folder path of the project now open in the studio. */
  dir: string;
  /** The studio URL serving it; the window navigates there. */
  url: string;
}

export interface AgentStudioBridge {
  /** Shows the OS folder picker; the studio restarts on the chosen project. null when cancelled. */
  openProjectFolder(): Promise<OpenedProject | null>;
  /** Shows a project file in the OS file manager. `path` is project-relative. */
  revealFile(path: string): Promise<void>;
  /** Opens a project file in the user's editor (the OS handler for the file type). */
  openInEditor(path: string, line?: number): Promise<void>;
}

/** Serialisable description of an error thrown in the main process. */
export interface BridgeErrorShape {
  name: string;
  code: string;
  message: string;
}

/**
 * Every IPC handler answers `{result}` or `{error}` (conventions.md): a thrown error crossing
 * IPC keeps only its message, so main serialises it and the preload rebuilds it.
 */
export type IpcAnswer<T> = { result: T } | { error: BridgeErrorShape };

export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

declare global {
  interface Window {
    /** Present only inside the Electron app; the headless studio in a browser has none. */
    agentStudio?: AgentStudioBridge;
  }
}
