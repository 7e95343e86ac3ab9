/**
 * batch/v1 Jobs in the mock as kube-apiserver 1.31+ serves them: discovery, the job strategy's defaults and generated
 * selector, the printer's columns, the status subresource, and deletion (a DELETE without a policy orphans the pods
 * with kube's warning; kubectl's default Background cascade takes them with the Job).
 */
import { expect } from 'chai';
import { request, eventually, useTestServer } from './support.js';

const NS = 'default';
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;

function job(name: string, restartPolicy: string | undefined = 'Never'): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: NS },
    spec: { backoffLimit: 3, template: { metadata: { labels: { app: 'build' } }, spec: { restartPolicy, containers: [{ name: 'c', image: 'img' }] } } },
  };
}

function podOf(owner: { metadata: { name: string; uid: string } }, name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: NS, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] },
    spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'img' }] },
  };
}

describe('mock API server: batch/v1 Jobs', function () {
  this.timeout(60_000);
  const t = useTestServer();

  it('discovery lists jobs (namespaced, in category all, with a status subresource)', async () => {
    const r = await request(t.server, 'GET', '/apis/batch/v1');
    const names = (r.json.resources as Array<{ name: string; namespaced: boolean; categories?: string[]; shortNames?: string[] }>);
    const jobs = names.find((x) => x.name === 'jobs')!;
    expect(jobs).to.include({ namespaced: true, kind: 'Job' });
    expect(jobs.categories).to.deep.equal(['all']);
    expect(jobs.shortNames).to.equal(undefined);
    expect(names.map((x) => x.name)).to.include('jobs/status');
    expect((await t.kubectlOk(['api-resources', '--api-group=batch', '--no-headers'])).trim().split(/\s+/)).to.deep.equal(['jobs', 'batch/v1', 'true', 'Job']);
  });

  it('create defaults the spec, selects by the Job\'s uid and labels the template; a restartPolicy of Always is refused', async () => {
    const created = await request(t.server, 'POST', JOBS, { body: job('defaults') });
    expect(created.status, created.text).to.equal(201);
    const { metadata, spec, status } = created.json;
    expect(spec).to.include({ completions: 1, parallelism: 1, backoffLimit: 3, completionMode: 'NonIndexed', suspend: false });
    expect(spec.selector).to.deep.equal({ matchLabels: { 'batch.kubernetes.io/controller-uid': metadata.uid } });
    expect(spec.template.metadata.labels).to.deep.equal({
      app: 'build',
      'batch.kubernetes.io/controller-uid': metadata.uid, 'batch.kubernetes.io/job-name': 'defaults',
      'controller-uid': metadata.uid, 'job-name': 'defaults',
    });
    expect(status).to.deep.equal({});
    expect(metadata.generation).to.equal(1);
    const always = await request(t.server, 'POST', JOBS, { body: job('always', 'Always') });
    expect(always.status).to.equal(422);
    expect(always.json.message).to.equal('Job.batch "always" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"');
  });

  it('kubectl get jobs prints STATUS, COMPLETIONS, DURATION and AGE as kube\'s job printer does', async () => {
    await t.kubectlOk(['create', '-f', '-'], JSON.stringify(job('printed')));
    const running = (await t.kubectlOk(['get', 'jobs', 'printed'])).split('\n');
    expect(running[0]!.split(/\s{2,}/)).to.deep.equal(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(running[1]!.split(/\s{2,}/).slice(0, 3)).to.deep.equal(['printed', 'Running', '0/1']);
    const start = new Date(Date.now() - 90_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const end = new Date(Date.now() - 30_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const status = { startTime: start, completionTime: end, succeeded: 1, conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] };
    await t.kubectlOk(['patch', 'job', 'printed', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
    const done = (await t.kubectlOk(['get', 'jobs', 'printed', '--no-headers'])).trim().split(/\s{2,}/);
    expect(done.slice(0, 4)).to.deep.equal(['printed', 'Complete', '1/1', '60s']);
    const wide = (await t.kubectlOk(['get', 'jobs', 'printed', '-o', 'wide'])).split('\n')[0]!.split(/\s{2,}/);
    expect(wide).to.deep.equal(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    await t.kubectlOk(['patch', 'job', 'printed', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { completionTime: null, succeeded: 0, conditions: [{ type: 'FailureTarget', status: 'True' }] } })]);
    expect((await t.kubectlOk(['get', 'jobs', 'printed', '--no-headers'])).trim().split(/\s{2,}/).slice(1, 3)).to.deep.equal(['FailureTarget', '0/1']);
  });

  it('kubectl delete job takes the Job\'s pods with it (Background); a DELETE naming no policy orphans them with kube\'s warning', async () => {
    const cascaded = (await request(t.server, 'POST', JOBS, { body: job('cascaded') })).json;
    await request(t.server, 'POST', `/api/v1/namespaces/${NS}/pods`, { body: podOf(cascaded, 'cascaded-abcde') });
    await t.kubectlOk(['delete', 'job', 'cascaded']);
    await eventually(async () => (await request(t.server, 'GET', `/api/v1/namespaces/${NS}/pods/cascaded-abcde`)).status === 404, 'the Job\'s pod deleted with it');

    const orphaning = (await request(t.server, 'POST', JOBS, { body: job('orphaning') })).json;
    await request(t.server, 'POST', `/api/v1/namespaces/${NS}/pods`, { body: podOf(orphaning, 'orphaning-abcde') });
    const deleted = await request(t.server, 'DELETE', `${JOBS}/orphaning`);
    expect(deleted.status).to.equal(200);
    expect(String(deleted.headers.warning)).to.include('child pods are preserved by default when jobs are deleted');
    const pod = await eventually(async () => {
      const p = (await request(t.server, 'GET', `/api/v1/namespaces/${NS}/pods/orphaning-abcde`)).json;
      return p.metadata.ownerReferences === undefined ? p : undefined;
    }, 'the orphaned pod without its owner reference');
    expect(pod.metadata.name).to.equal('orphaning-abcde');
  });
});
