/**
 * openshift/api's own validation suites (the onCreate / onUpdate cases its authors run against a real kube-apiserver,
 * `<group>/<version>/tests/<plural>.<group>/*.yaml`) run against the mock API server serving the OpenShift CRDs of one
 * release, for the Default feature set on the SelfManagedHA cluster profile: each case must give the expected object,
 * or an error containing the expected text. A suite file without `featureGates` always runs; one with them runs when
 * every gate it lists holds in Default on SelfManagedHA (`Name`: the gate is enabled there, `-Name`: it is not), as read
 * from the checkout's features.md table; the cases of the other files are counted as gated out, which is not a failure.
 * The suites are a peer's and are not copied into this repository, so this runs by hand, outside `npm test`:
 * `OCP_E2E_OPENSHIFT_API_SUITES=<checkout of github.com/openshift/api, or an extract of its tests/ folders and
 * features.md> npx mocha scripts/openshift-api-suites.test.ts`; without a checkout it fails saying so. The suites are
 * per branch: point it at the release branch of the CRD folder. OCP_E2E_OPENSHIFT_API_CRDS chooses the CRD folder
 * (default: the reference's 4.22 set, reference/crds/4.22).
 * Cases that cannot pass here for a reason other than the mock's validation are listed in SKIPPED with that reason;
 * the counts per suite are printed.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startApiServer, type RunningApiServer } from '../mock/index.js';
import { loadCrdsFrom } from '../reference/crds/index.js';

const SUITES = process.env.OCP_E2E_OPENSHIFT_API_SUITES;
const CRDS = process.env.OCP_E2E_OPENSHIFT_API_CRDS ?? fileURLToPath(new URL('../reference/crds/4.22/', import.meta.url));

/** Suites of the CRDs the reference serves on the 4.20 and 4.22 profiles' fixtures. */
const SUITE_DIRS = [
  'config/v1/tests/clusteroperators.config.openshift.io',
  'config/v1/tests/clusterversions.config.openshift.io',
  'config/v1/tests/imagedigestmirrorsets.config.openshift.io',
  'config/v1/tests/imagetagmirrorsets.config.openshift.io',
  'machineconfiguration/v1/tests/containerruntimeconfigs.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/controllerconfigs.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/kubeletconfigs.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/machineconfignodes.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/machineconfigpools.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/machineconfigs.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/machineosbuilds.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/machineosconfigs.machineconfiguration.openshift.io',
  'machineconfiguration/v1/tests/pinnedimagesets.machineconfiguration.openshift.io',
  'operator/v1/tests/machineconfigurations.operator.openshift.io',
];

/** OCP_E2E_OPENSHIFT_API_ALL=1: every suite of the checkout whose CRD is in the CRD folder (a wider measurement). */
function suiteDirs(): string[] {
  if (process.env.OCP_E2E_OPENSHIFT_API_ALL !== '1' || !SUITES) return SUITE_DIRS;
  const names = new Set(loadCrdsFrom(CRDS).map((c: any) => c.metadata.name as string));
  return ['config/v1', 'machineconfiguration/v1', 'operator/v1'].flatMap((gv) => {
    const dir = join(SUITES, gv, 'tests');
    return existsSync(dir) ? readdirSync(dir).filter((d) => names.has(d)).map((d) => `${gv}/tests/${d}`) : [];
  });
}

/**
 * Cases left out, keyed `<crdName> <file>: <case name>`, with the reason (none may be left out for a rule the
 * reference relies on).
 */
const SKIPPED: Record<string, string> = {};

/** The feature set and cluster profile whose gates decide which suite files run (a column of features.md). */
const FEATURE_COLUMN = 'Default on SelfManagedHA';

/**
 * The gates of the checkout's features.md table, each with whether it is enabled in FEATURE_COLUMN. The table has a
 * header row naming its columns (`| FeatureGate | Default on Hypershift | Default on SelfManagedHA | ...`), a ruler,
 * and a row per gate whose cell reads `Enabled` where the gate is on.
 */
function defaultGates(checkout: string): Map<string, boolean> {
  const file = join(checkout, 'features.md');
  if (!existsSync(file)) throw new Error(`the checkout has no ${file}: it decides which gated suite files run`);
  const cells = (line: string) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim().startsWith('|'));
  const header = cells(rows[0] ?? '');
  const column = header.indexOf(FEATURE_COLUMN);
  if (header[0] !== 'FeatureGate' || column < 0) throw new Error(`${file} has no "${FEATURE_COLUMN}" column: ${rows[0]}`);
  const gates = new Map<string, boolean>();
  for (const row of rows.slice(1)) {
    const c = cells(row);
    if (/^-+$/.test(c[0] ?? '')) continue;
    gates.set(c[0]!, /\bEnabled\b/.test(c[column] ?? ''));
  }
  return gates;
}

/** Why a suite file's gates do not all hold in FEATURE_COLUMN, or undefined when they do (or it has none). */
function gatedOut(featureGates: string[], gates: Map<string, boolean>): string | undefined {
  const unmet = featureGates.filter((g) => {
    const name = g.replace(/^-/, '');
    const enabled = gates.get(name) ?? false;
    return g.startsWith('-') ? enabled : !enabled;
  });
  if (!unmet.length) return undefined;
  return unmet.map((g) => {
    const name = g.replace(/^-/, '');
    if (!gates.has(name)) return `${name} is not in features.md`;
    return g.startsWith('-') ? `${name} is enabled` : `${name} is not enabled`;
  }).join(', ');
}

interface Case {
  name: string;
  initial: string;
  updated?: string;
  expected?: string;
  expectedError?: string;
  expectedStatusError?: string;
  initialCRDPatches?: unknown[];
}
interface Suite { crdName: string; featureGates?: string[] | null; version?: string; tests?: { onCreate?: Case[] | null; onUpdate?: Case[] | null } | null }

type Obj = Record<string, any>;

class Client {
  constructor(readonly server: RunningApiServer) {}
  async call(method: string, path: string, body?: unknown): Promise<{ code: number; obj: Obj }> {
    const res = await fetch(`${this.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.server.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { code: res.status, obj: (await res.json()) as Obj };
  }
}

/** What openshift/api's runner compares: the object without its server-set metadata. */
function comparable(o: Obj): Obj {
  const { metadata, apiVersion: _a, kind: _k, ...rest } = o;
  return { ...rest, metadata: { ...(metadata?.labels ? { labels: metadata.labels } : {}), ...(metadata?.annotations ? { annotations: metadata.annotations } : {}) } };
}

/** Patches the CRD as the case asks (to store an object an older schema allowed); returns how to undo it. */
async function patchCrd(client: Client, crdName: string, patches: unknown[]): Promise<() => Promise<void>> {
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
  const original = (await client.call('GET', path)).obj;
  const res = await fetch(`${client.server.url}${path}`, {
    method: 'PATCH', body: JSON.stringify(patches),
    headers: { authorization: `Bearer ${client.server.token}`, 'content-type': 'application/json-patch+json' },
  });
  if (res.status >= 300) throw new Error(`CRD patch failed: ${await res.text()}`);
  return async () => {
    const current = (await client.call('GET', path)).obj;
    const r = await client.call('PUT', path, { ...current, spec: original.spec });
    if (r.code >= 300) throw new Error(`CRD restore failed: ${r.obj.message}`);
  };
}

async function runCase(client: Client, crd: Obj, version: string, c: Case, update: boolean): Promise<string | undefined> {
  const restore = c.initialCRDPatches ? await patchCrd(client, crd.metadata.name, c.initialCRDPatches) : undefined;
  const initial = parse(c.initial, { uniqueKeys: false }) as Obj;
  // As openshift/api's runner: a status in the object is dropped on create where the kind has a status subresource,
  // and written through it before an update case's update (an onCreate case does not write it).
  const statusSubresource = crd.spec.versions.find((v: Obj) => v.name === version)?.subresources?.status !== undefined;
  const namespace = crd.spec.scope === 'Namespaced' ? initial.metadata?.namespace ?? 'default' : undefined;
  if (namespace) await client.call('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  const base = `/apis/${crd.spec.group}/${version}${namespace ? `/namespaces/${namespace}` : ''}/${crd.spec.names.plural}`;
  // As openshift/api's runner: an object without a name gets a generated one.
  initial.metadata ??= {};
  if (!initial.metadata.name) initial.metadata.generateName = 'test-';
  let name: string | undefined = initial.metadata.name;
  try {
    const { status: initialStatus, ...withoutStatus } = initial;
    const initialBody = statusSubresource ? withoutStatus : initial;
    const created = await client.call('POST', base, initialBody);
    if (!update && c.expectedError) {
      if (created.code < 300) return `created, expected error ${JSON.stringify(c.expectedError)}`;
      return String(created.obj.message).includes(c.expectedError) ? undefined : `error ${JSON.stringify(created.obj.message)}, expected ${JSON.stringify(c.expectedError)}`;
    }
    if (created.code >= 300) return `create failed: ${created.obj.message}`;
    let current = created.obj;
    name = current.metadata.name;
    if (update && statusSubresource && initialStatus !== undefined) {
      const r = await client.call('PUT', `${base}/${name}/status`, { ...current, status: initialStatus });
      if (r.code >= 300) return `initial status update failed: ${r.obj.message}`;
      current = r.obj;
    }
    await restore?.();
    if (update) {
      const updated = parse(c.updated!, { uniqueKeys: false }) as Obj;
      const { status: updatedStatus, ...withoutUpdatedStatus } = updated;
      const updatedBody: Obj = statusSubresource ? withoutUpdatedStatus : updated;
      updatedBody.metadata = { ...(updatedBody.metadata ?? {}), name, resourceVersion: current.metadata.resourceVersion };
      const r = await client.call('PUT', `${base}/${name}`, updatedBody);
      if (c.expectedError) {
        if (r.code < 300) return `updated, expected error ${JSON.stringify(c.expectedError)}`;
        return String(r.obj.message).includes(c.expectedError) ? undefined : `error ${JSON.stringify(r.obj.message)}, expected ${JSON.stringify(c.expectedError)}`;
      }
      if (r.code >= 300) return `update failed: ${r.obj.message}`;
      current = r.obj;
      if (statusSubresource && updatedStatus !== undefined) {
        const s = await client.call('PUT', `${base}/${name}/status`, { ...current, status: updatedStatus });
        if (c.expectedStatusError) {
          if (s.code < 300) return `status updated, expected error ${JSON.stringify(c.expectedStatusError)}`;
          return String(s.obj.message).includes(c.expectedStatusError) ? undefined : `error ${JSON.stringify(s.obj.message)}, expected ${JSON.stringify(c.expectedStatusError)}`;
        }
        if (s.code >= 300) return `status update failed: ${s.obj.message}`;
        current = s.obj;
      } else if (c.expectedStatusError) return `expected status error ${JSON.stringify(c.expectedStatusError)} without a status update`;
    }
    if (c.expected) {
      const want = comparable(parse(c.expected, { uniqueKeys: false }) as Obj);
      const got = comparable((await client.call('GET', `${base}/${name}`)).obj);
      try { expect(got).to.deep.equal(want); } catch { return `object differs: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`; }
    }
    return undefined;
  } finally {
    if (name) await client.call('DELETE', `${base}/${name}`);
    await restore?.();
  }
}

describe('mock API server: openshift/api validation suites (Default feature set on SelfManagedHA)', function () {
  this.timeout(300_000);
  let server: RunningApiServer;
  let client: Client;
  const counts: string[] = [];
  let gates: Map<string, boolean>;

  before(async function () {
    if (!SUITES || !existsSync(SUITES)) {
      throw new Error(`openshift/api's suites are missing: set OCP_E2E_OPENSHIFT_API_SUITES to a checkout of github.com/openshift/api (given: ${SUITES ?? 'nothing'})`);
    }
    gates = defaultGates(SUITES);
    server = await startApiServer({ tls: false, crds: loadCrdsFrom(CRDS) });
    client = new Client(server);
  });
  after(async () => {
    await server?.close();
    if (counts.length) console.log(`    openshift/api suites against ${CRDS}:\n${counts.map((l) => `      ${l}`).join('\n')}`);
  });

  for (const dir of suiteDirs()) {
    it(`passes ${dir.split('/').pop()}`, async function () {
      const folder = join(SUITES!, dir);
      if (!existsSync(folder)) {
        counts.push(`${dir.split('/').pop()}: no suite in this checkout`);
        return;
      }
      const files = readdirSync(folder).filter((f) => f.endsWith('.yaml')).sort();
      if (!files.length) throw new Error(`${folder} holds no suite file: is it openshift/api?`);
      const crds = loadCrdsFrom(CRDS) as Obj[];
      const failures: string[] = [];
      let passed = 0, skipped = 0, gatedCases = 0;
      const ran: string[] = [], gated: string[] = [];
      for (const file of files) {
        const suite = parse(readFileSync(join(folder, file), 'utf8'), { uniqueKeys: false }) as Suite;
        const cases = [['onCreate', suite.tests?.onCreate ?? []], ['onUpdate', suite.tests?.onUpdate ?? []]] as const;
        const caseCount = cases[0][1].length + cases[1][1].length;
        const why = gatedOut(suite.featureGates ?? [], gates);
        if (why) {
          gatedCases += caseCount;
          gated.push(`${file} (${caseCount}: ${why})`);
          continue;
        }
        ran.push(file);
        const crd = crds.find((c) => c.metadata.name === suite.crdName);
        if (!crd) throw new Error(`${CRDS} has no CRD ${suite.crdName} for the suite ${join(folder, file)}`);
        // As openshift/api's runner: the version the file names, else the CRD's only one (all the CRDs here have one).
        const versions = crd.spec.versions.map((v: Obj) => v.name as string);
        const version = suite.version ?? (versions.length === 1 ? versions[0] : crd.spec.versions.find((v: Obj) => v.storage).name);
        if (!versions.includes(version)) throw new Error(`${suite.crdName} in ${CRDS} has no version ${version} for ${file}`);
        for (const [kind, list] of cases) {
          for (const c of list) {
            if (SKIPPED[`${suite.crdName} ${file}: ${c.name}`]) { skipped++; continue; }
            const failure = await runCase(client, crd, version, c, kind === 'onUpdate');
            if (failure) failures.push(`${file} ${kind} "${c.name}": ${failure}`);
            else passed++;
          }
        }
      }
      counts.push(`${dir.split('/').pop()}: ${passed} passed, ${failures.length} failed, ${skipped} left out (SKIPPED), `
        + `${gatedCases} gated out (not in ${FEATURE_COLUMN}; not failures); ran ${ran.join(', ') || 'nothing'}`
        + (gated.length ? `; gated out ${gated.join(', ')}` : ''));
      if (failures.length) throw new Error(`${failures.length} case(s) failed:\n${failures.join('\n')}`);
    });
  }
});
