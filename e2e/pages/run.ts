// A run's timeline: status, phases, live output, final parts, scores, trace, actions.
import type { Locator, Page } from 'playwright-core';

export class RunPage {
  readonly root: Locator;
  constructor(readonly page: Page) {
    this.root = page.getByTestId('run-view');
  }

  async runId(): Promise<string> {
    await this.root.waitFor();
    return (await this.root.getAttribute('data-run-id'))!;
  }

  /** Waits until the run view shows run `runId` (after a send, rerun or resume). */
  async waitForRun(runId: string): Promise<void> {
    await this.page.locator(`[data-testid="run-view"][data-run-id="${runId}"]`).waitFor();
  }

  /** Waits until a run other than `previous` is on screen and answers its id. */
  async waitForNewRun(previous: string | null): Promise<string> {
    const selector = previous ? `[data-testid="run-view"]:not([data-run-id="${previous}"])` : '[data-testid="run-view"]';
    await this.page.locator(selector).waitFor({ timeout: 15_000 });
    return this.runId();
  }

  async waitForStatus(status: string | string[], timeout = 30_000): Promise<void> {
    const wanted = Array.isArray(status) ? status : [status];
    await this.page.locator(wanted.map((w) => `[data-testid="run-view"][data-status="${w}"]`).join(', ')).waitFor({ timeout });
  }

  status(): Promise<string | null> {
    return this.root.getAttribute('data-status');
  }

  /** Whether the run on screen still holds the active slot (queued, preparing or running). */
  async isActive(): Promise<boolean> {
    return ['queued', 'preparing', 'running'].includes((await this.status()) ?? '');
  }

  banner(): Locator {
    return this.root.getByTestId('status-banner');
  }

  phase(name: 'queue' | 'prepare' | 'invoke' | 'complete'): Locator {
    return this.root.getByTestId(`phase-${name}`);
  }

  liveOutput(): Locator {
    return this.root.getByTestId('live-output');
  }

  /** The live output's text now, '' when there is none (the run ended and its final output
   * replaced it): read without waiting for the element, which would wait out the default
   * timeout when the run ends between a status check and this read. */
  async liveText(): Promise<string> {
    return this.liveOutput().evaluateAll((els) => els[0]?.textContent ?? '');
  }

  finalOutput(): Locator {
    return this.root.getByTestId('final-output');
  }

  streamSummary(): Locator {
    return this.root.getByTestId('stream-summary');
  }

  scoreRows(): Locator {
    return this.root.getByTestId('score-row');
  }

  async openSection(testId: 'trace-section' | 'input-section' | 'output-section'): Promise<void> {
    const section = this.root.getByTestId(testId);
    if ((await section.getAttribute('open')) === null) await section.locator('summary').first().click();
  }

  /** The node waterfall (spans), one row per node execution. */
  spanRows(): Locator {
    return this.root.getByTestId('span-row');
  }

  spanRow(node: string): Locator {
    return this.root.locator(`[data-testid="span-row"][data-node="${node}"]`).first();
  }

  traceEvents(): Locator {
    return this.root.getByTestId('trace-event');
  }

  async cancel(): Promise<void> {
    await this.root.getByTestId('cancel-run').click();
  }

  async rerun(): Promise<void> {
    await this.root.getByTestId('rerun-run').click();
  }

  async reply(): Promise<void> {
    await this.root.getByTestId('resume-run').click();
  }
}
