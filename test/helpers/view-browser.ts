/**
 * The viewer in a real browser, for the tests that drive its page: Debian's chromium through
 * playwright-core (scripts/install-deps.sh installs it), pages that collect the page's own errors
 * (and, when asked, every request that failed), and `hyprof view` itself (helpers/view-server.ts).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export { startView, type ViewServerProcess } from './view-server.js';

export const CHROMIUM = '/usr/bin/chromium';
export const VIEWPORT = { width: 1280, height: 800 };

/** A page of the viewer with what went wrong on it: script errors, and failed requests if asked. */
export type ViewPage = Page & { errors: string[] };

/** Chromium, headless, with nothing it would fetch on its own (updates, sync). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (scripts/install-deps.sh)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Open `url` in a new page and wait until the viewer says it is ready. `requestFailures`: count
 * every request that failed among the page's errors (off by default: a test that closes a page or a
 * server while requests are under way would see them fail).
 */
export async function openPage(browser: Browser, url: string, opts: { requestFailures?: boolean } = {}): Promise<ViewPage> {
  const page = (await browser.newPage({ viewport: VIEWPORT })) as ViewPage;
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  if (opts.requestFailures) page.on('requestfailed', (r) => page.errors.push(`request failed: ${r.url()}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

/** Show tab `name` of the viewer and wait until it is drawn. */
export async function tab(page: Page, name: string): Promise<void> {
  await page.click(`#tabs button[data-tab="${name}"]`);
  await page.waitForSelector(`#tab-${name}:not([hidden])`);
  await page.waitForSelector('body[data-ready="1"]');
}
