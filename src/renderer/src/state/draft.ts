// The composer's draft (zustand), kept while the user moves between runs and views.
import { create } from 'zustand';

export const LABEL_KEYS = ['agentId', 'agentName', 'workflowId', 'workflowName', 'chatbotId', 'chatbotName'] as const;
export type LabelKey = (typeof LABEL_KEYS)[number];

export interface DataDraft {
  id: string;
  /** Tab label only (spec 2.6): never sent. */
  label: string;
  json: string;
  /** The input contract this part was started from; its id is kept in `data.schema`. */
  contractSchema?: string;
}

export type FileDraft =
  { id: string; source: 'bytes'; name: string; mime_type: string; size: number; bytes_base64: string } | { id: string; source: 'uri'; uri: string };

export interface ExtraMetadata {
  id: string;
  key: string;
  /** Parsed as JSON when it is valid JSON (numbers, booleans), else sent as a string. */
  value: string;
}

interface DraftState {
  text: string;
  dataParts: DataDraft[];
  activeDataId: string | null;
  files: FileDraft[];
  userId: string;
  labels: Record<LabelKey, string>;
  extra: ExtraMetadata[];
  /** The run-option fields the author changed, by option name (unchanged ones hold their default). */
  runOptions: Record<string, string>;
  setText(text: string): void;
  setRunOption(name: string, value: string): void;
  addDataPart(part: Omit<DataDraft, 'id'>): void;
  updateDataPart(id: string, json: string): void;
  removeDataPart(id: string): void;
  setActiveData(id: string): void;
  addFiles(files: FileDraft[]): void;
  removeFile(id: string): void;
  setUserId(v: string): void;
  setLabel(key: LabelKey, v: string): void;
  addExtra(): void;
  updateExtra(id: string, patch: Partial<Omit<ExtraMetadata, 'id'>>): void;
  removeExtra(id: string): void;
  /** After a successful send: parts go, metadata stays for the next message. */
  clearParts(): void;
}

let counter = 0;
export const draftId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

const emptyLabels = Object.fromEntries(LABEL_KEYS.map((k) => [k, ''])) as Record<LabelKey, string>;

export const useDraft = create<DraftState>()((set) => ({
  text: '',
  dataParts: [],
  activeDataId: null,
  files: [],
  userId: '',
  labels: { ...emptyLabels },
  extra: [],
  runOptions: {},
  setText: (text) => set({ text }),
  setRunOption: (name, value) => set((s) => ({ runOptions: { ...s.runOptions, [name]: value } })),
  addDataPart: (part) => {
    const id = draftId('data');
    set((s) => ({ dataParts: [...s.dataParts, { ...part, id }], activeDataId: id }));
  },
  updateDataPart: (id, json) => set((s) => ({ dataParts: s.dataParts.map((p) => (p.id === id ? { ...p, json } : p)) })),
  removeDataPart: (id) =>
    set((s) => {
      const dataParts = s.dataParts.filter((p) => p.id !== id);
      return { dataParts, activeDataId: s.activeDataId === id ? (dataParts.at(-1)?.id ?? null) : s.activeDataId };
    }),
  setActiveData: (activeDataId) => set({ activeDataId }),
  addFiles: (files) => set((s) => ({ files: [...s.files, ...files] })),
  removeFile: (id) => set((s) => ({ files: s.files.filter((f) => f.id !== id) })),
  setUserId: (userId) => set({ userId }),
  setLabel: (key, v) => set((s) => ({ labels: { ...s.labels, [key]: v } })),
  addExtra: () => set((s) => ({ extra: [...s.extra, { id: draftId('meta'), key: '', value: '' }] })),
  updateExtra: (id, patch) => set((s) => ({ extra: s.extra.map((e) => (e.id === id ? { ...e, ...patch } : e)) })),
  removeExtra: (id) => set((s) => ({ extra: s.extra.filter((e) => e.id !== id) })),
  clearParts: () => set({ text: '', dataParts: [], activeDataId: null, files: [] }),
}));
