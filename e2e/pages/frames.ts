// A watcher that checks every animation frame of the page for screens that contradict
// themselves, and keeps what it saw: a glitch that lasts one frame is caught, where reading
// the DOM between two awaits would miss it. Installed before the studio loads (an init
// script), so it runs from the first frame on and again after each reload.
import type { Page } from 'playwright-core';

const ENDED = ['completed', 'input_required', 'failed', 'cancelled', 'interrupted'];

/** Installs the watcher; the rules are the contradictions the studio must never show. */
/** The few DOM calls the watcher makes (the e2e code is typed without the DOM library). */
interface Node {
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): { length: number };
  getAttribute(name: string): string | null;
  textContent: string | null;
}

export async function watchFrames(page: Page): Promise<void> {
  await page.addInitScript((ended: string[]) => {
    const w = globalThis as unknown as { __frames: number; __contradictions: string[]; document: Node; requestAnimationFrame(cb: () => void): number };
    w.__contradictions = [];
    w.__frames = 0;
    const seen = new Set<string>();
    const note = (what: string) => {
      if (seen.has(what)) return;
      seen.add(what);
      w.__contradictions.push(what);
    };
    const check = () => {
      w.__frames += 1;
      const d = w.document;
      // The open session: its run count and its run list say the same.
      const open = d.querySelector('[data-testid="session-item"]:has([data-testid="session-select"][aria-current="true"])');
      const count = open?.querySelector('[data-testid="session-run-count"]')?.getAttribute('data-count');
      if (open && count !== undefined && count !== null) {
        if (Number(count) > 0 && open.querySelector('[data-testid="runs-empty"]')) note(`"${count} runs" beside "No runs yet"`);
        const items = open.querySelectorAll('[data-testid="run-item"]').length;
        if (items > Number(count)) note(`${items} runs listed under "${count} runs"`);
      }
      // The run on screen has ended: nothing says it is still active.
      const view = d.querySelector('[data-testid="run-view"]');
      const runId = view?.getAttribute('data-run-id');
      const status = view?.getAttribute('data-status');
      if (runId && status && ended.includes(status)) {
        const blocked = d.querySelector(`[data-testid="send-blocked-reason"][data-run-id="${runId}"]`);
        if (blocked) note(`run ${status}, composer says "${blocked.textContent}"`);
        const item = d.querySelector(`[data-testid="run-item"][data-run-id="${runId}"]`);
        const listed = item?.getAttribute('data-status');
        if (listed && !ended.includes(listed)) note(`run ${status}, sidebar says ${listed}`);
      }
      w.requestAnimationFrame(check);
    };
    w.requestAnimationFrame(check);
  }, ENDED);
}

/** What the watcher saw so far (each contradiction once), and how many frames it checked. */
export function contradictions(page: Page): Promise<{ seen: string[]; frames: number }> {
  return page.evaluate(() => {
    const w = globalThis as unknown as { __contradictions: string[]; __frames: number };
    return { seen: w.__contradictions, frames: w.__frames };
  });
}
