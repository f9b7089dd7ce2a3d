// The State panel's state editor (Monaco, or its textarea fallback): paste JSON into it as a
// person would, and read the problems it marks.
import type { Locator, Page } from 'playwright-core';

export class StateEditorPage {
  readonly root: Locator;
  constructor(
    private readonly page: Page,
    scope: Locator,
  ) {
    this.root = scope.getByTestId('state-editor');
  }

  editor(): Locator {
    return this.root.getByTestId('fork-editor');
  }

  /** Waits until the editor is up; 'monaco' or 'textarea'. */
  async mode(): Promise<string> {
    await this.root.locator('[data-testid="fork-editor"]:not([data-editor="loading"])').waitFor();
    return (await this.editor().getAttribute('data-editor'))!;
  }

  /** Replaces the whole text by pasting it (typing JSON into Monaco auto-closes brackets). The
   * caller waits for what the paste changes (problems appearing or going). */
  async paste(json: string): Promise<void> {
    if ((await this.mode()) === 'textarea') {
      await this.editor().fill(json);
      return;
    }
    await this.page.evaluate(
      (text) => (globalThis as unknown as { navigator: { clipboard: { writeText(t: string): Promise<void> } } }).navigator.clipboard.writeText(text),
      json,
    );
    await this.editor().locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('ControlOrMeta+V');
  }

  problems(): Locator {
    return this.root.getByTestId('state-edit-problem');
  }
}
