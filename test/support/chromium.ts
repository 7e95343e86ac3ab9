/**
 * Debian's Chromium, headless, driven by playwright-core, to look at the HTML report as a person would: opened from
 * file:// with the network blocked, every request the page makes recorded. A missing browser is an error with the way
 * to get it, never a skip.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.OCP_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Switches that keep Chromium from calling home and from using anything but this machine. */
const QUIET_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // The network blocked for real, not only by the request filter: no name resolves, and everything else goes to a
  // proxy port nobody listens on.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=127.0.0.1:9',
];

export interface OfflinePage {
  page: Page;
  /** Every URL the page asked for, in order (data: URLs included, as `data:` + media type). */
  requests: string[];
  close(): Promise<void>;
}

/** A headless Chromium with a new, empty profile; close() also deletes the profile. */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: as root, apt-get install -y chromium (scripts/ensure-env.sh --browser does it; .ci/run and npm test call it)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'ocp-e2e-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: QUIET_FLAGS,
      viewport: { width: 1400, height: 900 },
      serviceWorkers: 'block',
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`Chromium at ${CHROMIUM} did not start: ${(error as Error).message.split('\n')[0]}`);
  }
  // Whatever the page asks for, only its own file (and inline data) gets through; the rest is refused and recorded.
  await context.route('**/*', (route) => (/^(file|data|blob):/.test(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a file in a new page, recording every request it makes. */
export async function openOffline(browser: Chromium, file: string): Promise<OfflinePage> {
  const page = await browser.context.newPage();
  const requests: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    requests.push(url.startsWith('data:') ? url.slice(0, Math.max(5, url.indexOf(','))) : url);
  });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, requests, close: () => page.close() };
}
