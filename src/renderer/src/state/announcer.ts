// One polite aria-live region for the whole app. Only run phase changes are announced
// (spec 6.2): never a streamed delta, which would flood a screen reader.
import { create } from 'zustand';

interface AnnouncerState {
  message: string;
  nonce: number;
  announce(message: string): void;
}

export const useAnnouncer = create<AnnouncerState>()((set) => ({
  message: '',
  nonce: 0,
  announce: (message) => set((s) => ({ message, nonce: s.nonce + 1 })),
}));
