// Starting a rerun (plain or replayed) from the run view: the new run is selected and blocks
// the composer; a 409 naming the session's active run shows the conflict instead.
import { ApiError } from '../../api/client.ts';
import { useRerun } from '../../api/queries.ts';
import { useUi } from '../../state/ui.ts';

export function useStartRerun() {
  const rerun = useRerun();
  const selectRun = useUi((s) => s.selectRun);
  const setConflict = useUi((s) => s.setConflict);
  const setBlockingRun = useUi((s) => s.setBlockingRun);
  const start = async (run: { run_id: string; session_id: string }, arg: Parameters<typeof rerun.mutateAsync>[0]) => {
    try {
      const r = await rerun.mutateAsync(arg);
      setBlockingRun(r.run_id);
      selectRun(r.session_id ?? run.session_id, r.run_id);
    } catch (err) {
      if (err instanceof ApiError && err.activeRunId) {
        setConflict({ activeRunId: err.activeRunId, message: err.message });
        setBlockingRun(err.activeRunId);
      }
    }
  };
  return { rerun, start };
}
