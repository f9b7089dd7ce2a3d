// The composer: text, data parts (Monaco), metadata keys, send.
import type { Locator, Page } from 'playwright-core';

export class ComposerPage {
  readonly root: Locator;
  /** `compact-composer`: the one beside the graph on the Graph tab. */
  constructor(
    readonly page: Page,
    testId: 'composer' | 'compact-composer' = 'composer',
  ) {
    this.root = page.getByTestId(testId);
  }

  /** The field of a run option the project declares (manifest `runOptions`). */
  runOption(name: string): Locator {
    return this.root.getByTestId(`run-option-${name}`);
  }

  async typeText(text: string): Promise<void> {
    await this.root.getByTestId('composer-text').fill(text);
  }

  async openPanel(panel: 'data' | 'files' | 'metadata'): Promise<void> {
    const toggle = this.root.getByTestId(`toggle-${panel}`);
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  }

  /** Adds a data part from a declared input contract; its schema id is pre-filled. */
  async addContractPart(schema: string): Promise<void> {
    await this.openPanel('data');
    await this.root.locator(`[data-testid="add-contract-part"][data-schema="${schema}"]`).click();
    await this.editor().waitFor();
  }

  editor(): Locator {
    return this.root.getByTestId('data-part-editor');
  }

  /** Replaces the active data part's JSON the way a person pasting it would. */
  async setJson(json: string): Promise<void> {
    const editor = this.editor();
    await this.root.locator('[data-testid="data-part-editor"]:not([data-editor="loading"])').waitFor();
    if ((await editor.getAttribute('data-editor')) === 'textarea') {
      await editor.fill(json);
      return;
    }
    // Paste it, as a person would: typing JSON into Monaco auto-closes brackets and quotes.
    await this.page.evaluate(
      (text) => (globalThis as unknown as { navigator: { clipboard: { writeText(t: string): Promise<void> } } }).navigator.clipboard.writeText(text),
      json,
    );
    await editor.locator('.monaco-editor').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.press('ControlOrMeta+V');
    // The paste lands asynchronously: keys pressed before it would act on the old text.
    const squash = (t: string) => t.replace(/\s+/g, '');
    const deadline = Date.now() + 10_000;
    while (squash(await this.editorText()) !== squash(json)) {
      if (Date.now() > deadline) throw new Error(`the pasted JSON did not appear in the editor: ${await this.editorText()}`);
      await this.page.waitForTimeout(50);
    }
  }

  async editorText(): Promise<string> {
    await this.root.locator('[data-testid="data-part-editor"][data-editor="monaco"] .view-line').first().waitFor();
    // Monaco renders each line as .view-line, in visual order; non-breaking spaces as \u00a0.
    const lines = await this.editor()
      .locator('.view-line')
      .evaluateAll((els) =>
        els
          .map((l) => ({ top: parseFloat(l.getAttribute('style')?.match(/top:\s*([\d.]+)px/)?.[1] ?? '0'), text: l.textContent ?? '' }))
          .sort((a, b) => a.top - b.top)
          .map((l) => l.text),
      );
    return lines.join('\n').replace(/\u00a0/g, ' ');
  }

  /** Adds extra request metadata (values are parsed as JSON when they can be). */
  async setMetadata(entries: Record<string, string>): Promise<void> {
    await this.openPanel('metadata');
    for (const [key, value] of Object.entries(entries)) {
      if (key === 'userId') {
        await this.root.getByTestId('meta-userId').fill(value);
        continue;
      }
      await this.root.getByTestId('meta-add-extra').click();
      await this.root.getByTestId('meta-extra-key').last().fill(key);
      await this.root.getByTestId('meta-extra-value').last().fill(value);
    }
  }

  sendButton(): Locator {
    return this.root.getByTestId('send');
  }

  async send(): Promise<void> {
    await this.sendButton().click();
  }

  async sendWithShortcut(): Promise<void> {
    await this.root.getByTestId('composer-text').press('ControlOrMeta+Enter');
  }

  blockedReason(): Locator {
    return this.root.getByTestId('send-blocked-reason');
  }

  conflictBanner(): Locator {
    return this.root.getByTestId('conflict-banner');
  }

  mode(): Promise<string | null> {
    return this.root.getAttribute('data-mode');
  }
}
