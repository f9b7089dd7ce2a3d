// Holds the studio's replies on their way to the page, to force an order of arrival: each
// reply is read from the studio when the page asks (so it says what was true then) and handed
// over only once `release()` is called, by the test, on an event it awaited. A reply the page
// cancelled meanwhile is dropped (the page no longer waits for it).
import type { Page } from 'playwright-core';

export interface HeldReplies {
  /** The JSON bodies read so far, in the order the page asked. */
  readonly bodies: unknown[];
  release(): void;
}

/** Holds the replies of the page's GET requests whose URL matches `pattern`. */
export async function holdReplies(page: Page, pattern: RegExp): Promise<HeldReplies> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const bodies: unknown[] = [];
  await page.route(pattern, async (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    const response = await route.fetch();
    bodies.push(await response.json().catch(() => null));
    await gate;
    await route.fulfill({ response }).catch(() => undefined);
  });
  return { bodies, release };
}

/** Hands each matching reply to the page in one piece once the studio has sent all of it: a
 * run's event stream (which the studio ends after the run's terminal event) arrives whole. */
export async function deliverWhole(page: Page, pattern: RegExp): Promise<void> {
  await page.route(pattern, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response }).catch(() => undefined);
  });
}
