/**
 * Makes the screenshots under docs/screenshots/ that docs/reports.md shows: for a failing run (the buggy nightly profile) and a
 * passing run (4.12-ga) of spec 54183, the report's overview, the test page and the upgrade timeline chart, taken in
 * headless Chromium from file:// with the network blocked, as test/bin/report-in-browser.test.ts opens them.
 *
 *   npx tsx scripts/report-screenshots.ts            # two runs (about a minute), then the screenshots
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ocpE2e, ROOT } from '../test/support/cli.js';
import { launchChromium, openOffline, type Chromium } from '../test/support/chromium.js';

const OUT = join(ROOT, 'docs', 'screenshots');
const TEST_TITLE = 'upgrade with custom osImage in master and worker pools';

async function shoot(browser: Chromium, name: string, profile: string, expectedExit: number): Promise<void> {
  const run = await ocpE2e(['run', '--profile', profile, '--grep', '54183'], { timeoutMs: 300_000 });
  if (run.exitCode !== expectedExit) throw new Error(`run --profile ${profile} exited ${run.exitCode}, expected ${expectedExit}:\n${run.output.slice(-2000)}`);
  const report = await ocpE2e(['report', '--reports-dir', run.reportsDir]);
  if (report.exitCode !== 0) throw new Error(`report failed:\n${report.output}`);
  const index = join(run.reportsDir, 'html', 'index.html');

  const page = await openOffline(browser, index);
  const suite = page.page.getByText('[sig-mco] MCO layering: upgrade with a custom osImage').first();
  await suite.waitFor();
  // Passed tests start folded under their suite; unfold it so the overview shows the test either way.
  if (!(await page.page.getByText(TEST_TITLE).first().isVisible())) await suite.click();
  await page.page.getByText(TEST_TITLE).first().waitFor();
  await page.page.screenshot({ path: join(OUT, `${name}-overview.png`) });
  await page.page.getByText(TEST_TITLE).first().click();
  await page.page.getByText('Category:').or(page.page.getByText('Passed')).first().waitFor();
  await page.page.waitForTimeout(500);
  await page.page.screenshot({ path: join(OUT, `${name}-test.png`) });
  const foreign = page.requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:') && !u.startsWith('blob:null/'));
  if (foreign.length) throw new Error(`the report made requests beyond its file: ${foreign.join(', ')}`);
  await page.close();

  // The chart as attached: the HTML attachment itself, whole.
  const results = join(run.reportsDir, 'allure-results');
  const chart = readdirSync(results).find((f) => f.endsWith('-attachment.html'));
  if (!chart) throw new Error(`no timeline chart attachment in ${results}`);
  const chartPage = await openOffline(browser, join(results, chart));
  await chartPage.page.setViewportSize({ width: 1300, height: 700 });
  await chartPage.page.screenshot({ path: join(OUT, `${name}-timeline.png`), fullPage: true });
  await chartPage.close();
  console.log(`${name}: ${OUT}/${name}-{overview,test,timeline}.png`);
}

mkdirSync(OUT, { recursive: true });
const browser = await launchChromium();
try {
  await shoot(browser, 'failing', '4.12-nightly-2022-09-08', 1);
  await shoot(browser, 'passing', '4.12-ga', 0);
} finally {
  await browser.close();
}
