/**
 * Acceptance of the HTML report as a QE engineer meets it after a failed nightly: one quick failing run against the
 * buggy reference profile, `ocp-e2e report`, then the page opened from file:// in headless Chromium with the network
 * blocked. It must show the failing test, its phase, the operator's quoted message, the timeline chart and the run's
 * environment, and every request it makes must stay within its own file.
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Frame } from 'playwright-core';
import { ocpE2e } from '../support/cli.js';
import { launchChromium, openOffline, type Chromium, type OfflinePage } from '../support/chromium.js';

const TEST_TITLE = 'upgrade with custom osImage in master and worker pools';

/** What the page asked for that is not its own file, inline data, or a blob it made from them. */
function foreignRequests(requests: string[], index: string): string[] {
  const own = pathToFileURL(index).href;
  return requests.filter((url) => !(url === own || url.startsWith(`${own}#`) || url.startsWith('data:') || url.startsWith('blob:null/')));
}

describe('the HTML report opens from disk in Chromium, offline, and calls nobody', function () {
  this.timeout(240_000);
  let browser: Chromium;
  let index: string;
  let opened: OfflinePage;

  before(async function () {
    // Chromium first: a machine without it fails here, with the way to get it, before spending a run.
    browser = await launchChromium();
    const run = await ocpE2e(['run', '--profile', '4.12-nightly-2022-09-08', '--grep', '54183'], { timeoutMs: 180_000 });
    expect(run.exitCode, run.output).to.equal(1);
    const report = await ocpE2e(['report', '--reports-dir', run.reportsDir]);
    expect(report.exitCode, report.output).to.equal(0);
    index = join(run.reportsDir, 'html', 'index.html');
    expect(report.output).to.include(`HTML report: ${index}`);
    opened = await openOffline(browser, index);
  });

  after(async () => {
    await opened?.close();
    await browser?.close();
  });

  it('lists the failing test and the run\'s environment on the overview', async () => {
    const page = opened.page;
    await page.getByText(TEST_TITLE).first().waitFor({ timeout: 20_000 });
    const overview = await page.innerText('body');
    expect(overview).to.match(/Failed\s*1/);
    for (const fact of ['embedded reference cluster', '4.12-nightly-2022-09-08', '600 cluster s per wall s', 'https://127.0.0.1:']) {
      expect(overview, `environment shows ${fact}`).to.include(fact);
    }
  });

  it('shows the failing test with its phase and the operator\'s quoted message once, with the project\'s frames only', async () => {
    const page = opened.page;
    await page.getByText(TEST_TITLE).first().click();
    await page.getByText('Category:').first().waitFor({ timeout: 20_000 });
    const body = await page.innerText('body');
    expect(body).to.include('Category: Upgrade deadlock');
    expect(body).to.include('[phase upgrade]');
    expect(body).to.match(/osImageURL mismatch for master in rendered-master-[0-9a-f]+ expected: \S+ got: \S+/);
    expect(body, 'no Node internals in the shown stack').not.to.include('node:internal');
    // The whole message once (the top box); the failed step repeats only its first line as the error's title.
    expect(body.split('last observed:').length - 1, 'the message body is shown once').to.equal(1);
    // The check phase never ran, yet each invariant is a step of its own with its verdict.
    // Reported once: judged by the upgrade's failure report, and by nothing else.
    for (const title of ['machine-config ClusterOperator is never Degraded by an osImageURL mismatch', 'the master pool is updated before ClusterVersion reports the new version']) {
      expect(body.split(`invariant: ${title}: BROKEN`).length - 1, `${title}: one step`).to.equal(1);
    }
    expect(body, 'the recording is attached as data').to.include('upgrade recording');
  });

  it('draws the upgrade timeline: lanes for ClusterVersion, operator conditions, pools and nodes, and the broken invariants', async () => {
    const page = opened.page;
    await page.getByText('upgrade timeline (chart)').first().click();
    let chart: Frame | undefined;
    for (let i = 0; i < 50 && !chart; i++) {
      for (const frame of page.frames()) if ((await frame.locator('svg[data-chart="upgrade-timeline"]').count().catch(() => 0)) > 0) chart = frame;
      if (!chart) await page.waitForTimeout(200);
    }
    expect(chart, 'the chart attachment is shown in the page').not.to.equal(undefined);
    const lanes = await chart!.locator('[data-lane]').evaluateAll((els) => els.map((e) => e.getAttribute('data-lane')));
    expect(lanes).to.include.members(['clusterversion', 'co/machine-config Degraded', 'mcp/master', 'mcp/worker']);
    expect(lanes.filter((l) => l?.startsWith('node/'))).to.have.length(5);
    expect(await chart!.locator('[data-mark="upgrade requested"]').count()).to.equal(1);
    const broken = await chart!.locator('[data-invariant]').evaluateAll((els) => els.map((e) => e.getAttribute('data-invariant')));
    expect(broken).to.include('machine-config ClusterOperator is never Degraded by an osImageURL mismatch');
    // Each broken invariant placed by its judge's id, once.
    const ids = await chart!.locator('[data-invariant-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-invariant-id')));
    expect(ids).to.have.members(['mco-never-degraded-by-osimageurl-mismatch', 'mco-not-degraded-at-end', 'master-updated-before-completion']);
    expect(await chart!.locator('rect[data-tone="bad"]').count(), 'Degraded drawn red').to.be.greaterThan(0);
  });

  it('made no request beyond its own file', () => {
    expect(opened.requests.length, 'requests were recorded').to.be.greaterThan(0);
    expect(foreignRequests(opened.requests, index)).to.deep.equal([]);
  });

  it('the request recorder does see a page that calls another host (control)', async () => {
    const tampered = index.replace(/index\.html$/, 'tampered.html');
    writeFileSync(tampered, readFileSync(index, 'utf8').replace('</body>', '<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST"></script></body>'));
    const control = await openOffline(browser, tampered);
    try {
      await control.page.waitForTimeout(300);
      expect(foreignRequests(control.requests, tampered)).to.deep.equal(['https://www.googletagmanager.com/gtag/js?id=G-TEST']);
    } finally {
      await control.close();
    }
  });
});
