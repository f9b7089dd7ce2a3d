// Renderer entry: react-query for server state, the URL hash for the selection, one app.
import './zod-config.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App.tsx';
import { ApiError } from './api/client.ts';
import { syncUiWithHash } from './state/ui.ts';
import './styles/tokens.css';
import './styles/base.css';
import './styles/controls.css';
import './styles/mocks.css';
import './styles/layout.css';
import './styles/sidebar.css';
import './styles/session.css';
import './styles/output.css';
import './styles/composer.css';
import './styles/graph.css';
import './styles/conversation.css';
import './styles/inspector.css';
import './styles/calls.css';
import './styles/call-playground.css';
import './styles/source.css';
import './styles/compare.css';
import './styles/evals.css';
import './styles/evals-cases.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 2_000,
      // 4xx answers are final; a studio that is briefly away gets two more tries.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

syncUiWithHash();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
