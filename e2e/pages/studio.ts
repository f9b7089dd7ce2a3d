// The studio shell: load, ready marker, sidebar sessions and runs, views.
import type { Locator, Page } from 'playwright-core';

export class StudioPage {
  constructor(
    readonly page: Page,
    readonly url: string,
  ) {}

  /** Opens the studio and waits for its explicit ready marker. */
  async open(hash = ''): Promise<void> {
    await this.page.goto(`${this.url}/${hash}`);
    await this.waitReady();
  }

  async waitReady(): Promise<void> {
    await this.page.locator('#root[data-app-state="ready"]').waitFor({ timeout: 20_000 });
  }

  byTestId(id: string): Locator {
    return this.page.getByTestId(id);
  }

  sessions(): Locator {
    return this.byTestId('session-item');
  }

  session(sessionId: string): Locator {
    return this.page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`);
  }

  async newSession(): Promise<string> {
    const before = await this.sessions().count();
    await this.byTestId('new-session').click();
    await this.sessions().nth(before).waitFor();
    const selected = this.page.locator('[data-testid="session-item"]:has([data-testid="session-select"][aria-current="true"])');
    await selected.waitFor();
    return (await selected.getAttribute('data-session-id'))!;
  }

  async selectSession(sessionId: string): Promise<void> {
    await this.session(sessionId).getByTestId('session-select').click();
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.session(sessionId).getByTestId('session-delete').click();
    await this.byTestId('confirm-dialog').waitFor();
    await this.byTestId('confirm-accept').click();
  }

  runItems(): Locator {
    return this.byTestId('run-item');
  }

  runItem(runId: string): Locator {
    return this.page.locator(`[data-testid="run-item"][data-run-id="${runId}"]`);
  }

  async showView(view: 'run' | 'graph' | 'compare' | 'source' | 'evals'): Promise<void> {
    await this.byTestId(`view-${view}`).click();
  }
}
