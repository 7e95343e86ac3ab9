/**
 * Six `ocp-e2e cluster up` at once, as six users of one machine start them (issue 25). With four at once, CI once saw
 * `oc adm release info` refuse a cluster's registry (`x509: certificate signed by unknown authority`): the env file
 * was read while `cluster up` was still writing it, empty, so oc ran without the cluster's CA (reproduced with the
 * plain write put back: 9 of 48 starts in eight rounds, under load; the registries themselves never crossed). Each
 * cluster here must give its user, through its env file and kubeconfig, a registry whose certificate its own CA
 * signed, a release that names only its own registry (read with the real oc, as the report's step 1) and an API
 * server that serves its kubeconfig; stopped, none may leave a process, a listening port, a private storage folder or
 * a certs.d entry.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/cli.js';
import { startClusters, stopClusters, verifyCluster, type StartedCluster } from './support/parallel-clusters.js';

const OC = path.join(ROOT, '..', 'shared', 'upstream', 'bin', 'oc');
const CLUSTERS = 6;

describe('cluster up: six reference clusters at once do not cross', function () {
  this.timeout(360_000);
  let workRoot: string | undefined;
  let started: StartedCluster[] = [];

  after(async () => {
    await stopClusters(started, path.join(workRoot ?? tmpdir(), 'reference')).catch(() => undefined);
    if (workRoot) await rm(workRoot, { recursive: true, force: true });
  });

  it('each serves its own CA, its own release and its API server to its user; stopped, nothing of any is left', async () => {
    if (!existsSync(OC)) throw new Error(`the upstream oc is missing at ${OC} (../shared/upstream/bin/oc): each cluster's release is read with it, as the report's step 1 does`);
    // one work folder for all six, as users share the default: one cluster gets it, five work in private folders
    workRoot = await mkdtemp(path.join(tmpdir(), 'ocp-e2e-parallel-clusters-'));
    const workDir = path.join(workRoot, 'reference');
    const run = await startClusters(CLUSTERS, workDir, OC);
    started = run.started;
    expect(run.failures, 'every cluster up must start').to.deep.equal([]);
    expect(new Set(started.map((c) => c.registry)).size, 'six registries on six addresses').to.equal(CLUSTERS);

    const verdicts = await Promise.all(started.map((c) => verifyCluster(c, started, OC)));
    expect(verdicts.filter((v) => v.problems.length), 'what a cluster gave its user that was not its own').to.deep.equal([]);

    const left = await stopClusters(started.splice(0), workDir);
    expect(left, 'what the stopped clusters left').to.deep.equal([]);
  });
});
