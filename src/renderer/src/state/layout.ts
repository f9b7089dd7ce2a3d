// Layout choices the author makes once and keeps (docs/studio-ui.md, Layout): whether the
// sessions column is collapsed, remembered in this browser's localStorage.
import { create } from 'zustand';

export const SIDEBAR_COLLAPSED_KEY = 'agent-studio.sidebar-collapsed';

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(SIDEBAR_COLLAPSED_KEY) === 'true';
  } catch {
    return false;
  }
}

interface LayoutState {
  sidebarCollapsed: boolean;
  toggleSidebar: () => void;
}

export const useLayout = create<LayoutState>()((set, get) => ({
  sidebarCollapsed: readCollapsed(),
  toggleSidebar: () => {
    const sidebarCollapsed = !get().sidebarCollapsed;
    try {
      localStorage.setItem(SIDEBAR_COLLAPSED_KEY, String(sidebarCollapsed));
    } catch {
      // Storage refused (private mode, quota): the choice holds for this page only.
    }
    set({ sidebarCollapsed });
  },
}));
