/**
 * The suite under least privilege, against `ocp-e2e cluster up` (RBAC on, as on every real cluster): the whole suite
 * (spec 1 included) run with `--target cluster` as a ServiceAccount bound to deploy/clusterrole.yaml passes; the same
 * role minus any one of its rules, and a token with no role at all, stop at the permission preflight with a message
 * naming the user, verbs, resources, groups and scopes; `kubectl auth can-i` answers for that account as a real server
 * does. From the audit of the passing run (`cluster up --audit-log`): every request the suite made was allowed by the
 * role (or by what every authenticated user has), and every rule of the role allowed at least one of them — so the
 * role is both enough and needed. One cluster serves every it(): the runs that only read or are refused come first.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { parse, parseAllDocuments, parseDocument, stringify, type YAMLMap, type YAMLSeq } from 'yaml';
import { setUpServiceAccount } from '../../bin/commands/service-account.js';
import { parseShard } from '../../bin/run/schedule/shard.js';
import { chooseKubeconfig } from '../../bin/run/targets/kubeconfig-path.js';
import type { AuditLine } from '../../bin/commands/audit-log.js';
import { Cluster } from '../../helpers/cluster.js';
import { SUITE_PERMISSIONS } from '../../helpers/preflight/permissions.js';
import { loadKubeConfig } from '../../lib/kube/kubeconfig.js';
import { CLIENT_WORK_PATH } from '../../mock/index.js';
import { BOOTSTRAP_CLUSTER_ROLES } from '../../mock/rbac/bootstrap.js';
import { ruleAllows, type PolicyRule, type RequestAttributes } from '../../mock/rbac/rules.js';
import { clusterUp, lastLine, ocpE2e, ROOT, type ClusterUp } from '../support/cli.js';

const UPSTREAM_BIN = join(ROOT, '..', 'shared', 'upstream', 'bin');
const ROLE_FILE = join(ROOT, 'deploy', 'clusterrole.yaml');
const SUITE_USER = 'system:serviceaccount:ocp-e2e:ocp-e2e';
/** Asked by OpenShift's SCC admission, which the reference does not have: no request of a run can show it. */
const ADMISSION_ONLY = [{ apiGroups: ['security.openshift.io'], resources: ['securitycontextconstraints'], resourceNames: ['privileged'], verbs: ['use'] }];
/**
 * Rules only a failure's artefacts use, on a release that serves the kind (the passing runs here are on 4.12, which
 * has neither): the kill matrix shows the artefacts keep the MachineConfigNodes of every row on 4.19+.
 */
const FAILURE_ARTEFACTS_ONLY = [{ apiGroups: ['machineconfiguration.openshift.io'], resources: ['machineconfignodes'], verbs: ['list'] }];
/**
 * Rules only image mode uses (a failed build's Job): 4.12, where these runs are, has no MachineOSConfig API, so the
 * image-mode specs skip and no build is waited for. (MachineOSBuilds are listed on every release: the session's
 * watcher asks for them wherever the cluster may serve them, and a 4.12 answers 404.)
 */
const IMAGE_MODE_ONLY = [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list'] }];

interface RoleRule extends PolicyRule { comment: string }

/** The rules of deploy/clusterrole.yaml, each with the comment written above it. */
function roleRules(): RoleRule[] {
  const doc = parseDocument(readFileSync(ROLE_FILE, 'utf8'));
  const rules = doc.get('rules') as YAMLSeq<YAMLMap>;
  // the comment above the first item belongs to the sequence in the YAML tree
  return rules.items.map((item, i) => ({ ...(item.toJSON() as PolicyRule), comment: ((i === 0 ? rules.commentBefore : undefined) ?? item.commentBefore ?? '').trim() }));
}

const bare = ({ comment: _comment, ...rule }: RoleRule): PolicyRule => rule;

/** SUITE_PERMISSIONS as rules: one per group, resource and names, verbs in order of first use. */
function rulesOfTheList(): PolicyRule[] {
  const rules = new Map<string, PolicyRule>();
  for (const p of SUITE_PERMISSIONS) {
    const key = JSON.stringify([p.group, p.resource, p.resourceNames ?? []]);
    const rule = rules.get(key) ?? { apiGroups: [p.group], resources: [p.resource], ...(p.resourceNames ? { resourceNames: p.resourceNames } : {}), verbs: [] };
    rule.verbs = [...new Set([...rule.verbs, ...p.verbs])];
    rules.set(key, rule);
  }
  return [...rules.values()];
}

const sortedRule = (r: PolicyRule) => ({ apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames ?? [], verbs: [...r.verbs].sort() });

function attributesOf(line: AuditLine): RequestAttributes {
  if (line.path !== undefined) return { kind: 'nonResource', verb: line.verb, path: line.path };
  return { kind: 'resource', verb: line.verb, group: line.group ?? '', resource: line.resource ?? '', subresource: line.subresource ?? '', namespace: line.namespace ?? '', name: line.name ?? '' };
}

const describeLine = (l: AuditLine) => (l.path ? `${l.verb} ${l.path}` : `${l.verb} ${l.group || 'core'}/${l.resource}${l.subresource ? `/${l.subresource}` : ''} ns=${l.namespace || '-'} name=${l.name || '-'}`);

/** The bootstrap roles every authenticated user is bound to (discovery, access reviews), as on kube-apiserver. */
const EVERY_USER: PolicyRule[] = BOOTSTRAP_CLUSTER_ROLES.filter((r) => r.metadata.name !== 'cluster-admin').flatMap((r) => r.rules as PolicyRule[]);

describe('the suite as a ServiceAccount bound to deploy/clusterrole.yaml, against cluster up with RBAC on', function () {
  this.timeout(600_000);
  let up: ClusterUp | undefined;
  let dir: string;
  let auditFile: string;
  let saKubeconfig: string;
  let env: Record<string, string>;
  const kubectl = (kubeconfig: string, args: string[]) =>
    execa('kubectl', args, { reject: false, timeout: 30_000, env: { KUBECONFIG: kubeconfig, HOME: dir, KUBECACHEDIR: join(dir, `cache-${args[0]}`) } });
  const account = async (name: string, roleFiles: string[]) => {
    const out = join(dir, `${name}.kubeconfig`);
    await setUpServiceAccount(up!.kubeconfig, { namespace: 'ocp-e2e', name, clusterRoleFiles: roleFiles, kubeconfigOut: out });
    return out;
  };

  before(async () => {
    if (!existsSync(join(UPSTREAM_BIN, 'oc'))) throw new Error(`the real oc 4.12 is missing: expected ${join(UPSTREAM_BIN, 'oc')} (../shared/upstream/bin/oc); the suite reads nodes with oc debug node (--node-reads debug), and the role must cover it`);
    dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-rbac-'));
    auditFile = join(dir, 'audit.jsonl');
    // ten workers: the whole suite shares one upgrade over custom pools (bin/run/targets/one-upgrade.ts), so the audit
    // sees every request a real cluster's run makes, the pools' included
    up = await clusterUp(['--workers', '10', '--service-account', 'ocp-e2e/ocp-e2e', '--cluster-role', ROLE_FILE, '--audit-log', auditFile]);
    saKubeconfig = `${up.kubeconfig}.sa`;
    env = { ...up.env, PATH: `${UPSTREAM_BIN}${delimiter}${process.env.PATH ?? ''}` };
  });
  after(async () => {
    await up?.stop();
  });

  it('the role in deploy/ is the suite\'s list of permissions, rule for rule, each rule saying which step needs it', () => {
    const rules = roleRules();
    expect(rules.map((r) => sortedRule(bare(r)))).to.deep.equal(rulesOfTheList().map(sortedRule));
    for (const rule of rules) {
      expect(rule.apiGroups, JSON.stringify(rule)).to.have.length(1);
      expect(rule.resources, JSON.stringify(rule)).to.have.length(1);
      expect(rule.comment.length, `rule ${JSON.stringify(bare(rule))} has no comment saying which step needs it`).to.be.greaterThan(30);
    }
    const role = parse(readFileSync(ROLE_FILE, 'utf8'));
    const binding = parse(readFileSync(join(ROOT, 'deploy', 'clusterrolebinding.yaml'), 'utf8'));
    const sa = parse(readFileSync(join(ROOT, 'deploy', 'serviceaccount.yaml'), 'utf8'));
    expect(binding.roleRef).to.deep.equal({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    expect(binding.subjects).to.deep.equal([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
  });

  it('kubectl auth can-i and whoami answer for the account as a real server does', async () => {
    const can = async (...args: string[]) => {
      const r = await kubectl(saKubeconfig, ['auth', 'can-i', ...args]);
      return [String(r.stdout).trim(), r.exitCode];
    };
    expect(await can('create', 'machineconfigs')).to.deep.equal(['yes', 0]);
    expect(await can('patch', 'clusterversions.config.openshift.io/version')).to.deep.equal(['yes', 0]);
    expect(await can('get', 'secrets/pull-secret', '-n', 'openshift-config')).to.deep.equal(['yes', 0]);
    expect(await can('get', 'secrets/other', '-n', 'openshift-config')).to.deep.equal(['no', 1]);
    expect(await can('delete', 'clusterversions')).to.deep.equal(['no', 1]);
    expect(await can('create', 'clusterrolebindings')).to.deep.equal(['no', 1]);
    const list = String((await kubectl(saKubeconfig, ['auth', 'can-i', '--list'])).stdout);
    expect(list).to.match(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
    expect(list).to.match(/^machineconfigs\.machineconfiguration\.openshift\.io\s+\[\]\s+\[\]\s+\[get list watch create delete\]$/m);
    expect(list).to.match(/^secrets\s+\[\]\s+\[pull-secret\]\s+\[get\]$/m);
    expect(list).to.match(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list).to.match(/^\s+\[\/apis\/\*\]\s+\[\]\s+\[get\]$/m);
    expect(String((await kubectl(saKubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout)).to.equal(SUITE_USER);
  });

  it('a token with no role: its first request is refused with 403, and the suite stops naming what is missing (exit 5)', async () => {
    const nobody = await account('nobody', []);
    const first = await execa(join(UPSTREAM_BIN, 'oc'), ['get', 'clusterversion', 'version', '--kubeconfig', nobody], { reject: false, env: { HOME: dir } });
    expect(first.exitCode).to.equal(1);
    expect(String(first.stderr).trim()).to.equal('Error from server (Forbidden): clusterversions.config.openshift.io "version" is forbidden: User "system:serviceaccount:ocp-e2e:nobody" cannot get resource "clusterversions" in API group "config.openshift.io" at the cluster scope');
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', nobody, '--allow-disruptive'], { env });
    expect(r.exitCode, r.output).to.equal(5);
    expect(r.output).to.include('User "system:serviceaccount:ocp-e2e:nobody" lacks');
    expect(r.output).to.include('cannot get resource "clusterversions" in API group "config.openshift.io" at the cluster scope');
    expect(r.output).to.include('cannot create resource "machineconfigs" in API group "machineconfiguration.openshift.io" at the cluster scope');
    expect(r.output).to.include('deploy/clusterrole.yaml');
    expect(r.output, 'no spec may start').to.not.match(/▶ phase|passed, \d+ failed/);
  });

  it('the role minus any one rule stops the run at the preflight, naming that rule\'s verbs, resource and group', async () => {
    const rules = roleRules();
    const role = parse(readFileSync(ROLE_FILE, 'utf8'));
    const runs = rules.map((rule, i) => async () => {
      const name = `minus-${i}`;
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, stringify({ ...role, metadata: { name: `ocp-e2e-${name}` }, rules: rules.filter((_, k) => k !== i).map(bare) }));
      const kubeconfig = await account(name, [file]);
      const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', kubeconfig, '--allow-disruptive'], { env });
      return { rule: bare(rule), r, user: `system:serviceaccount:ocp-e2e:${name}` };
    });
    const results = [];
    for (let i = 0; i < runs.length; i += 3) results.push(...(await Promise.all(runs.slice(i, i + 3).map((run) => run()))));
    for (const { rule, r, user } of results) {
      const what = JSON.stringify(rule);
      expect(r.exitCode, `${what}\n${r.output}`).to.equal(5);
      expect(r.output, what).to.include(`User "${user}" lacks`);
      for (const verb of rule.verbs) {
        expect(r.output, `${what}\n${r.output}`).to.match(new RegExp(`cannot ${verb} resource "${rule.resources![0]!.replace('/', '\\/')}"(?: named "[^"]+")? in API group "${rule.apiGroups![0]!.replace(/\./g, '\\.')}"`));
      }
      // only that rule is missing: nothing else is named
      const named = r.output.split('\n').filter((l) => /^\s+cannot /.test(l));
      expect(named.length, `${what}\n${r.output}`).to.equal(SUITE_PERMISSIONS.filter((p) => p.group === rule.apiGroups![0] && p.resource === rule.resources![0] && (p.resourceNames ?? []).join() === (rule.resourceNames ?? []).join()).reduce((n, p) => n + p.verbs.length, 0));
    }
  });

  it('from a pod\'s in-cluster config (no kubeconfig anywhere), the suite, oc and client-node all reach the cluster as the account', async () => {
    const saDir = join(dir, 'serviceaccount');
    const sa = parse(readFileSync(saKubeconfig, 'utf8'));
    const admin = loadKubeConfig(up!.kubeconfig);
    mkdirSync(saDir);
    writeFileSync(join(saDir, 'token'), sa.users[0].user.token, { mode: 0o600 });
    writeFileSync(join(saDir, 'ca.crt'), Buffer.from(admin.getCurrentCluster()!.caData!, 'base64').toString('utf8'));
    writeFileSync(join(saDir, 'namespace'), 'ocp-e2e');
    const url = new URL(admin.getCurrentCluster()!.server);
    const chosen = chooseKubeconfig(undefined, { env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port }, serviceAccountDir: saDir }, join(dir, 'no-home'));
    expect(chosen.source).to.equal('in-cluster');
    expect(readFileSync(chosen.path, 'utf8'), 'the kubeconfig names the token file, it does not copy the token').to.not.include(sa.users[0].user.token);
    const ocVersion = await execa(join(UPSTREAM_BIN, 'oc'), ['get', 'clusterversion', 'version', '-o', 'jsonpath={.status.desired.version}', '--kubeconfig', chosen.path], { reject: false, env: { HOME: dir } });
    expect(ocVersion.exitCode, String(ocVersion.stderr)).to.equal(0);
    expect(String(ocVersion.stdout)).to.match(/^4\.12\./);
    const cv = await Cluster.fromKubeconfig(chosen.path).getClusterVersion();
    expect(cv.status?.desired?.version).to.match(/^4\.12\./);
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', chosen.path], { env });
    expect(r.exitCode, r.output).to.equal(0);
    expect(lastLine(r.output)).to.match(/^0 passed, 0 failed, \d+ skipped$/);
  });

  it('the whole suite passes as the account (spec 1 included), and the audit shows the role is enough and every rule needed', async () => {
    // the whole suite reads nodes with oc debug (the debug pods' rules), then E2E-004 (no upgrade: it can run again on
    // the upgraded cluster) reads them through the daemons (the default: pods/exec); a run may do either, so the
    // audit must see both
    const r = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', saKubeconfig, '--allow-disruptive', '--node-reads', 'debug'], { timeoutMs: 540_000, env });
    expect(r.exitCode, r.output).to.equal(0);
    expect(r.output).to.match(/✔ Author:[^\n]*54183-\[Serial\]\[Disruptive\] upgrade with custom osImage in master and worker pools/);
    expect(lastLine(r.output)).to.match(/^[1-9]\d* passed, 0 failed, \d+ skipped$/);
    const daemonReads = await ocpE2e(['run', '--target', 'cluster', '--kubeconfig', saKubeconfig, '--allow-disruptive', '--grep', 'E2E-004'], { timeoutMs: 50_000, env });
    expect(daemonReads.exitCode, daemonReads.output).to.equal(0);
    expect(lastLine(daemonReads.output)).to.equal('1 passed, 0 failed, 0 skipped');

    // the reference's own endpoint where the suite says it is working (its skipping clock waits): a real cluster has
    // none and is never asked, so no role grants it
    const lines = readFileSync(auditFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditLine).filter((l) => l.user === SUITE_USER && l.path !== CLIENT_WORK_PATH);
    expect(lines.length).to.be.greaterThan(50);
    const rules = roleRules().map(bare);
    const notAllowed = lines.filter((l) => !l.allowed || ![...rules, ...EVERY_USER].some((rule) => ruleAllows(attributesOf(l), rule)));
    expect(notAllowed.map(describeLine), 'requests of the suite its role does not allow').to.deep.equal([]);
    const unused = rules.filter((rule) => !lines.some((l) => ruleAllows(attributesOf(l), rule)));
    expect(unused, 'rules of deploy/clusterrole.yaml no request of the suite needed (only SCC use, asked by OpenShift admission, what only failure artefacts read, and what only image mode uses, may be)').to.deep.equal([...FAILURE_ARTEFACTS_ONLY, ...IMAGE_MODE_ONLY, ...ADMISSION_ONLY]);
    console.log(`      audit: ${lines.length} requests of ${SUITE_USER}, ${rules.length} rules, each used (SCC use: admission only)`);
  });
});

describe('deploy/ Jobs: as the ServiceAccount, in-cluster config, read-only and non-root, shards counted as --shard counts', () => {
  const documents = (file: string) => parseAllDocuments(readFileSync(join(ROOT, 'deploy', file), 'utf8')).map((d) => d.toJS());
  const jobOf = (file: string) => documents(file).find((d) => d.kind === 'Job');

  for (const file of ['job.yaml', 'indexed-job.yaml']) {
    it(`${file}: runs as ocp-e2e with no kubeconfig, root file system read-only, non-root, reports on its claim`, () => {
      const docs = documents(file);
      const job = jobOf(file);
      const pod = job.spec.template.spec;
      const container = pod.containers[0];
      expect(pod.serviceAccountName).to.equal('ocp-e2e');
      expect(job.metadata.namespace).to.equal('ocp-e2e');
      expect(pod.securityContext.runAsNonRoot).to.equal(true);
      expect(container.securityContext).to.deep.include({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      const command = [...(container.command ?? []), ...container.args].join(' ');
      expect(command).to.match(/run --target cluster --allow-disruptive/);
      expect(command, 'the in-cluster config, not a kubeconfig').to.not.match(/kubeconfig/i);
      expect((container.env ?? []).map((e: { name: string }) => e.name)).to.not.include('KUBECONFIG');
      const mounts = Object.fromEntries(container.volumeMounts.map((m: { name: string; mountPath: string }) => [m.mountPath, m.name]));
      expect(mounts['/tmp'], 'HOME and the in-cluster kubeconfig need a writable /tmp').to.equal('tmp');
      expect(pod.volumes.find((v: { name: string }) => v.name === 'tmp').emptyDir).to.deep.equal({});
      const claim = pod.volumes.find((v: { name: string }) => v.name === mounts['/artifacts']).persistentVolumeClaim.claimName;
      expect(docs.find((d) => d.kind === 'PersistentVolumeClaim').metadata.name).to.equal(claim);
      expect(command).to.match(/--reports-dir "?\/artifacts\//);
    });
  }

  it('indexed-job.yaml: pod k of N runs --shard k/N (JOB_COMPLETION_INDEX counts from 0, --shard from 1) into reports-k', async () => {
    const job = jobOf('indexed-job.yaml');
    const container = job.spec.template.spec.containers[0];
    expect(job.spec.completionMode).to.equal('Indexed');
    const shards = container.env.find((e: { name: string }) => e.name === 'SHARDS').value;
    expect(Number(shards)).to.equal(job.spec.completions);
    const bin = mkdtempSync(join(tmpdir(), 'ocp-e2e-shard-'));
    // an ocp-e2e that prints its arguments, one per line
    writeFileSync(join(bin, 'ocp-e2e'), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
    const seen: string[] = [];
    for (let index = 0; index < job.spec.completions; index++) {
      const env = Object.fromEntries(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));
      const r = await execa(container.command[0], [...container.command.slice(1), ...container.args], { env: { ...env, JOB_COMPLETION_INDEX: String(index), PATH: `${bin}${delimiter}${process.env.PATH}` } });
      const args = String(r.stdout).split('\n');
      const shard = args[args.indexOf('--shard') + 1]!;
      expect(parseShard(shard)).to.deep.equal({ index: index + 1, count: Number(shards) });
      expect(args[args.indexOf('--reports-dir') + 1]).to.equal(`/artifacts/reports-${index + 1}`);
      seen.push(shard);
    }
    expect(seen).to.deep.equal(['1/3', '2/3', '3/3']);
  });
});
