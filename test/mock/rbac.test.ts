/**
 * RBAC on the mock API server: the rule matching and request attributes as kube-apiserver has them (unit), then
 * end to end with the real kubectl: a ServiceAccount with no role is denied with the real message, `kubectl auth
 * can-i` answers from the same authorizer, and a Role bound by a RoleBinding grants exactly what it says, where it says.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'chai';
import { requestAttributes } from '../../mock/rbac/attributes.js';
import { RbacAuthorizer, type RbacObjects } from '../../mock/rbac/authorizer.js';
import { forbidden } from '../../mock/rbac/forbidden.js';
import { ADMIN_USER, serviceAccountUser } from '../../mock/rbac/identity.js';
import { ruleAllows, type PolicyRule, type RequestAttributes } from '../../mock/rbac/rules.js';
import type { AuthorizationRecord } from '../../mock/index.js';
import type { KubeObject } from '../../mock/resources.js';
import { request, useTestServer } from './support.js';

const res = (verb: string, resource: string, more: Partial<Extract<RequestAttributes, { kind: 'resource' }>> = {}): RequestAttributes =>
  ({ kind: 'resource', verb, group: '', resource, subresource: '', namespace: '', name: '', ...more });
const path = (verb: string, p: string): RequestAttributes => ({ kind: 'nonResource', verb, path: p });
const attrs = (method: string, url: string) => {
  const [p, q = ''] = url.split('?');
  return requestAttributes(method, p!, p!.split('/').filter(Boolean), new URLSearchParams(q));
};

describe('mock RBAC: rules', () => {
  it('matches verbs, API groups and resources by name or *', () => {
    const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] };
    expect(ruleAllows(res('list', 'nodes'), rule)).to.equal(true);
    expect(ruleAllows(res('watch', 'nodes'), rule)).to.equal(false);
    expect(ruleAllows(res('list', 'nodes', { group: 'apps' }), rule)).to.equal(false);
    expect(ruleAllows(res('list', 'pods'), rule)).to.equal(false);
    expect(ruleAllows(res('delete', 'deployments', { group: 'apps' }), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).to.equal(true);
  });

  it('treats subresources as RBAC does: exact, * and */sub match; the parent and pods/* do not', () => {
    const log = res('get', 'pods', { subresource: 'log', name: 'p' });
    expect(ruleAllows(log, { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).to.equal(false);
    expect(ruleAllows(log, { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] })).to.equal(true);
    expect(ruleAllows(log, { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] })).to.equal(false);
    expect(ruleAllows(log, { verbs: ['get'], apiGroups: [''], resources: ['*'] })).to.equal(true);
    const status = res('update', 'deployments', { group: 'apps', subresource: 'status', name: 'd' });
    expect(ruleAllows(status, { verbs: ['update'], apiGroups: ['apps'], resources: ['*/status'] })).to.equal(true);
    expect(ruleAllows(res('update', 'deployments', { group: 'apps', name: 'd' }), { verbs: ['update'], apiGroups: ['apps'], resources: ['*/status'] })).to.equal(false);
    expect(ruleAllows(log, { verbs: ['get'], apiGroups: [''], resources: ['pods/exec'] })).to.equal(false);
  });

  it('limits by resourceNames, which a request without a name never satisfies', () => {
    const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] };
    expect(ruleAllows(res('get', 'configmaps', { name: 'a' }), rule)).to.equal(true);
    expect(ruleAllows(res('get', 'configmaps', { name: 'b' }), rule)).to.equal(false);
    expect(ruleAllows(res('list', 'configmaps'), rule)).to.equal(false);
  });

  it('matches nonResourceURLs exactly or by a trailing * prefix, never resource requests', () => {
    const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/apis', '/openapi/*'] };
    expect(ruleAllows(path('get', '/apis'), rule)).to.equal(true);
    expect(ruleAllows(path('get', '/apis/apps/v1'), rule)).to.equal(false);
    expect(ruleAllows(path('get', '/openapi/v3/apis/apps/v1'), rule)).to.equal(true);
    expect(ruleAllows(path('post', '/apis'), rule)).to.equal(false);
    expect(ruleAllows(res('get', 'nodes'), { verbs: ['*'], nonResourceURLs: ['*'] })).to.equal(false);
  });
});

describe('mock RBAC: request attributes', () => {
  it('derives the verb as kube-apiserver does', () => {
    expect(attrs('GET', '/api/v1/nodes')).to.deep.include({ kind: 'resource', verb: 'list', resource: 'nodes', namespace: '', name: '' });
    expect(attrs('GET', '/api/v1/nodes?watch=true')).to.deep.include({ verb: 'watch' });
    expect(attrs('GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1')).to.deep.include({ verb: 'list', name: 'n1' });
    expect(attrs('GET', '/api/v1/nodes/n1')).to.deep.include({ verb: 'get', name: 'n1' });
    expect(attrs('POST', '/api/v1/namespaces/ns/configmaps')).to.deep.include({ verb: 'create', namespace: 'ns', resource: 'configmaps' });
    expect(attrs('PUT', '/apis/apps/v1/namespaces/ns/deployments/d/status')).to.deep.include({ verb: 'update', group: 'apps', resource: 'deployments', subresource: 'status', name: 'd' });
    expect(attrs('PATCH', '/api/v1/nodes/n1')).to.deep.include({ verb: 'patch' });
    expect(attrs('DELETE', '/api/v1/namespaces/ns/pods/p')).to.deep.include({ verb: 'delete', name: 'p' });
    expect(attrs('DELETE', '/api/v1/namespaces/ns/pods')).to.deep.include({ verb: 'deletecollection' });
    expect(attrs('GET', '/api/v1/namespaces/ns/pods/p/log')).to.deep.include({ verb: 'get', resource: 'pods', subresource: 'log', namespace: 'ns', name: 'p' });
  });

  it('sees a namespace as named and scoped by itself, and discovery as non-resource paths', () => {
    expect(attrs('GET', '/api/v1/namespaces/foo')).to.deep.include({ resource: 'namespaces', name: 'foo', namespace: 'foo' });
    expect(attrs('PUT', '/api/v1/namespaces/foo/finalize')).to.deep.include({ resource: 'namespaces', name: 'foo', subresource: 'finalize' });
    expect(attrs('GET', '/api/v1/namespaces')).to.deep.include({ verb: 'list', resource: 'namespaces', namespace: '' });
    for (const p of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/openapi/v3']) {
      expect(attrs('GET', p), p).to.deep.equal({ kind: 'nonResource', verb: 'get', path: p });
    }
  });
});

const rbacObjects = (objs: KubeObject[]): RbacObjects => {
  const of = (kind: string) => objs.filter((o) => o.kind === kind);
  return {
    clusterRoleBindings: () => of('ClusterRoleBinding'),
    roleBindings: (ns) => of('RoleBinding').filter((o) => o.metadata.namespace === ns),
    clusterRole: (name) => of('ClusterRole').find((o) => o.metadata.name === name),
    role: (ns, name) => of('Role').find((o) => o.metadata.namespace === ns && o.metadata.name === name),
  };
};
const sa = serviceAccountUser('suite', 'runner');
const saSubject = { kind: 'ServiceAccount', name: 'runner', namespace: 'suite' };

describe('mock RBAC: the authorizer', () => {
  const readPods: KubeObject = { kind: 'ClusterRole', metadata: { name: 'read-pods' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] };

  it('grants a ClusterRole bound by a RoleBinding only in that binding\'s namespace', () => {
    const authz = new RbacAuthorizer(rbacObjects([readPods,
      { kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'suite' }, roleRef: { kind: 'ClusterRole', name: 'read-pods' }, subjects: [{ kind: 'ServiceAccount', name: 'runner' }] }]));
    expect(authz.authorize(sa, res('list', 'pods', { namespace: 'suite' }))).to.deep.equal(
      { allowed: true, reason: 'RBAC: allowed by RoleBinding "rb/suite" of ClusterRole "read-pods" to ServiceAccount "runner/suite"' });
    expect(authz.authorize(sa, res('list', 'pods', { namespace: 'other' })).allowed).to.equal(false);
    expect(authz.authorize(sa, res('list', 'pods')).allowed, 'all namespaces').to.equal(false);
    expect(authz.authorize(serviceAccountUser('other', 'runner'), res('list', 'pods', { namespace: 'suite' })).allowed, 'a namesake elsewhere').to.equal(false);
  });

  it('grants a ClusterRoleBinding everywhere, to users, groups and service accounts', () => {
    const authz = new RbacAuthorizer(rbacObjects([readPods,
      { kind: 'ClusterRoleBinding', metadata: { name: 'crb' }, roleRef: { kind: 'ClusterRole', name: 'read-pods' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts:suite' }] }]));
    expect(authz.authorize(sa, res('list', 'pods')).reason).to.equal('RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "read-pods" to Group "system:serviceaccounts:suite"');
    expect(authz.authorize(sa, res('get', 'pods', { namespace: 'x', name: 'p' })).allowed).to.equal(true);
    expect(authz.authorize(sa, res('delete', 'pods', { namespace: 'x', name: 'p' })).allowed).to.equal(false);
    expect(authz.authorize({ name: 'alice', groups: ['system:authenticated'] }, res('list', 'pods')).allowed).to.equal(false);
    expect(authz.authorize(ADMIN_USER, res('delete', 'nodes')).allowed, 'system:masters').to.equal(true);
  });

  it('says which role a binding lacks when it denies', () => {
    const authz = new RbacAuthorizer(rbacObjects([
      { kind: 'RoleBinding', metadata: { name: 'rb', namespace: 'suite' }, roleRef: { kind: 'Role', name: 'gone' }, subjects: [saSubject] }]));
    expect(authz.authorize(sa, res('get', 'pods', { namespace: 'suite', name: 'p' }))).to.deep.equal(
      { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found' });
    expect(authz.authorize(sa, res('get', 'pods', { namespace: 'other', name: 'p' }))).to.deep.equal({ allowed: false, reason: '' });
  });

  it('words the 403 as kube-apiserver does', () => {
    const user = serviceAccountUser('ns', 'sa');
    const nodes = forbidden(user, res('list', 'nodes'), '').toStatus();
    expect(nodes).to.deep.equal({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'nodes is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "nodes" in API group "" at the cluster scope',
      details: { kind: 'nodes' },
    });
    const log = forbidden(user, res('get', 'pods', { subresource: 'log', namespace: 'ns', name: 'x' }), '').toStatus();
    expect(log.message).to.equal('pods "x" is forbidden: User "system:serviceaccount:ns:sa" cannot get resource "pods/log" in API group "" in the namespace "ns"');
    expect(log.details).to.deep.equal({ name: 'x', kind: 'pods' });
    const deploy = forbidden(user, res('patch', 'deployments', { group: 'apps', namespace: 'ns', name: 'd' }), 'RBAC: role.rbac.authorization.k8s.io "r" not found').toStatus();
    expect(deploy.message).to.equal('deployments.apps "d" is forbidden: User "system:serviceaccount:ns:sa" cannot patch resource "deployments" in API group "apps" in the namespace "ns": RBAC: role.rbac.authorization.k8s.io "r" not found');
    expect(deploy.details).to.deep.equal({ name: 'd', group: 'apps', kind: 'deployments' });
    expect(forbidden(user, path('get', '/apis'), '').message).to.equal('forbidden: User "system:serviceaccount:ns:sa" cannot get path "/apis"');
  });
});

describe('mock RBAC: end to end with kubectl', function () {
  this.timeout(60_000);
  const t = useTestServer({ rbac: true });
  let saKubeconfig = '';
  const asSa = async (args: string[], input?: string) => {
    const r = await execa('kubectl', args, { input, reject: false, timeout: 30_000, env: { KUBECONFIG: saKubeconfig, HOME: t.dir, KUBECACHEDIR: join(t.dir, 'sa-cache') } });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  };

  before(async () => {
    await t.kubectlOk(['create', 'namespace', 'suite']);
    const token = t.server.issueServiceAccountToken('suite', 'runner');
    saKubeconfig = join(t.dir, 'sa-kubeconfig');
    writeFileSync(saKubeconfig, t.server.kubeconfigYaml().replace(t.server.token, token), { mode: 0o600 });
    await t.kubectlOk(['create', 'configmap', 'settings', '-n', 'suite', '--from-literal=a=1']);
    await t.kubectlOk(['create', 'configmap', 'settings', '-n', 'default', '--from-literal=a=1']);
  });

  it('denies a ServiceAccount with no role with the real message, and lets it discover', async () => {
    const r = await asSa(['get', 'nodes']);
    expect(r.exitCode).to.equal(1);
    expect(r.stderr.trim()).to.equal('Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:suite:runner" cannot list resource "nodes" in API group "" at the cluster scope');
    expect((await asSa(['api-resources', '-o', 'name'])).stdout).to.contain('clusterroles.rbac.authorization.k8s.io');
  });

  it('answers kubectl auth can-i for the admin and the ServiceAccount', async () => {
    expect((await t.kubectl(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).to.equal('yes');
    const no = await asSa(['auth', 'can-i', 'list', 'nodes']);
    expect([no.stdout.trim(), no.exitCode]).to.deep.equal(['no', 1]);
    expect((await asSa(['auth', 'can-i', 'get', '/apis'])).stdout.trim()).to.equal('yes');
    expect((await asSa(['auth', 'can-i', 'get', '/metrics'])).stdout.trim()).to.equal('no');
  });

  it('grants exactly the one verb of a Role bound by a RoleBinding, in its namespace only', async () => {
    // `kubectl create role|rolebinding` send protobuf, which the mock does not decode for RBAC kinds; apply sends JSON.
    await t.kubectlOk(['apply', '-f', '-'], `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: read-settings, namespace: suite }
rules: [{ apiGroups: [""], resources: [configmaps], verbs: [get] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: runner-reads, namespace: suite }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: read-settings }
subjects: [{ kind: ServiceAccount, name: runner, namespace: suite }]
`);
    expect(await t.kubectlOk(['get', 'rolebinding', 'runner-reads', '-n', 'suite', '-o', 'wide', '--no-headers'])).to.match(/^runner-reads\s+Role\/read-settings\s+\S+\s+suite\/runner\s*$/m);
    expect((await asSa(['get', 'configmap', 'settings', '-n', 'suite', '-o', 'jsonpath={.data.a}'])).stdout).to.equal('1');
    const list = await asSa(['get', 'configmaps', '-n', 'suite']);
    expect(list.stderr.trim()).to.equal('Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:suite:runner" cannot list resource "configmaps" in API group "" in the namespace "suite"');
    const del = await asSa(['delete', 'configmap', 'settings', '-n', 'suite']);
    expect(del.stderr.trim()).to.equal('Error from server (Forbidden): configmaps "settings" is forbidden: User "system:serviceaccount:suite:runner" cannot delete resource "configmaps" in API group "" in the namespace "suite"');
    const elsewhere = await asSa(['get', 'configmap', 'settings', '-n', 'default']);
    expect(elsewhere.stderr.trim()).to.equal('Error from server (Forbidden): configmaps "settings" is forbidden: User "system:serviceaccount:suite:runner" cannot get resource "configmaps" in API group "" in the namespace "default"');
    expect((await asSa(['auth', 'can-i', 'get', 'configmaps', '-n', 'suite'])).stdout.trim()).to.equal('yes');
    expect((await asSa(['auth', 'can-i', 'list', 'configmaps', '-n', 'suite'])).stdout.trim()).to.equal('no');
    expect((await asSa(['auth', 'can-i', 'get', 'configmaps', '-n', 'default'])).stdout.trim()).to.equal('no');
    const rules = (await asSa(['auth', 'can-i', '--list', '-n', 'suite'])).stdout;
    expect(rules).to.match(/^configmaps\s+\[\]\s+\[\]\s+\[get\]$/m);
    expect(rules).to.match(/^\s+\[\/apis\]\s+\[\]\s+\[get\]$/m);
  });

  it('answers a denied subresource and an unknown token as kube-apiserver does', async () => {
    const token = t.server.issueServiceAccountToken('suite', 'runner');
    const log = await request(t.server, 'GET', '/api/v1/namespaces/suite/pods/x/log', { token });
    expect([log.status, log.json]).to.deep.equal([403, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'pods "x" is forbidden: User "system:serviceaccount:suite:runner" cannot get resource "pods/log" in API group "" in the namespace "suite"',
      details: { name: 'x', kind: 'pods' },
    }]);
    expect((await request(t.server, 'GET', '/api/v1/nodes', { token: `${token}x` })).status).to.equal(401);
    expect((await request(t.server, 'GET', '/api/v1/nodes', { token: 'not-a-token' })).status).to.equal(401);
  });

  it('mints tokens through TokenRequest (kubectl create token) that die with their account', async () => {
    await t.kubectlOk(['create', 'serviceaccount', 'short-lived', '-n', 'suite']);
    const token = (await t.kubectlOk(['create', 'token', 'short-lived', '-n', 'suite'])).trim();
    const ssar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', resource: 'nodes' } } };
    const review = await request(t.server, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { token, body: ssar });
    expect([review.status, review.json.status]).to.deep.equal([201, { allowed: false }]);
    await t.kubectlOk(['delete', 'serviceaccount', 'short-lived', '-n', 'suite']);
    expect((await request(t.server, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { token, body: ssar })).status).to.equal(401);
  });
});

describe('mock RBAC: off by default', function () {
  this.timeout(30_000);
  const t = useTestServer();

  it('lets every authenticated user do everything and creates no roles', async () => {
    const token = t.server.issueServiceAccountToken('default', 'anyone');
    expect((await request(t.server, 'GET', '/api/v1/nodes', { token })).status).to.equal(200);
    expect((await request(t.server, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles')).json.items).to.deep.equal([]);
    expect((await t.kubectl(['auth', 'can-i', 'delete', 'nodes'])).stdout.trim()).to.equal('yes');
  });
});

describe('mock RBAC: RBAC names, who am I, and the audit hook', function () {
  this.timeout(60_000);
  const records: AuthorizationRecord[] = [];
  let throwing = false;
  const t = useTestServer({
    rbac: true,
    onAuthorize: (r) => {
      records.push(r);
      if (throwing) throw new Error('a broken audit');
    },
  });

  it('accepts `system:` names for roles and bindings (path segments, as kube-apiserver) and refuses what no path can hold', async () => {
    await t.kubectlOk(['apply', '-f', '-'], `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:ocp-e2e:reader" }
rules: [{ apiGroups: [""], resources: [nodes], verbs: [list] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:ocp-e2e:reader:suite" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:ocp-e2e:reader" }
subjects: [{ kind: ServiceAccount, name: reader, namespace: default }]
`);
    expect(await t.kubectlOk(['get', 'clusterrole', 'system:ocp-e2e:reader', '-o', 'jsonpath={.metadata.name}'])).to.equal('system:ocp-e2e:reader');
    const token = t.server.issueServiceAccountToken('default', 'reader');
    expect((await request(t.server, 'GET', '/api/v1/nodes', { token })).status).to.equal(200);
    const bad = await request(t.server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'a%2Fb' }, rules: [] } });
    expect([bad.status, bad.json.message]).to.deep.equal([422, 'ClusterRole.rbac.authorization.k8s.io "a%2Fb" is invalid: metadata.name: Invalid value: "a%2Fb": may not contain \'%\'']);
    // every other kind keeps the DNS subdomain rule
    const cm = await request(t.server, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'system:x' } } });
    expect(cm.status).to.equal(422);
  });

  it('says who the caller is (SelfSubjectReview, kubectl auth whoami)', async () => {
    const token = t.server.issueServiceAccountToken('default', 'whoami');
    const me = await request(t.server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(me.status).to.equal(201);
    expect(me.json.status.userInfo.username).to.equal('system:serviceaccount:default:whoami');
    expect(me.json.status.userInfo.groups).to.deep.equal(['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    const admin = await t.kubectl(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(admin.stdout, admin.stderr).to.equal('system:admin');
  });

  it('tells the hook each request of a non-admin user with its attributes and decision, never the admin\'s, and a throwing hook changes no answer', async () => {
    records.length = 0;
    const token = t.server.issueServiceAccountToken('default', 'audited');
    await request(t.server, 'GET', '/api/v1/namespaces/default/pods/p/log', { token });
    await request(t.server, 'GET', '/api/v1/nodes');
    throwing = true;
    const denied = await request(t.server, 'DELETE', '/apis/machineconfiguration.openshift.io/v1/machineconfigs/x', { token });
    throwing = false;
    expect(denied.status).to.equal(403);
    expect(records.map((r) => [r.user.name, r.attributes, r.decision.allowed])).to.deep.equal([
      ['system:serviceaccount:default:audited', { kind: 'resource', verb: 'get', group: '', version: 'v1', resource: 'pods', subresource: 'log', namespace: 'default', name: 'p' }, false],
      ['system:serviceaccount:default:audited', { kind: 'resource', verb: 'delete', group: 'machineconfiguration.openshift.io', version: 'v1', resource: 'machineconfigs', subresource: '', namespace: '', name: 'x' }, false],
    ]);
  });
});
