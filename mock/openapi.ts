/**
 * OpenAPI v3 documents (/openapi/v3 and one per group/version), enough for kubectl: it reads them to learn that
 * the server validates fields itself (the `fieldValidation` parameter on PATCH), to find schemas for
 * `kubectl explain`, and to see which patch types each kind accepts (strategic merge only for built-ins).
 * Custom resources publish their CRD schema; built-in kinds publish an open object schema.
 */
import { createHash } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './resources.js';

// Strategic merge is accepted for built-in kinds but not advertised: kubectl would then compute its patches from
// these open schemas, which lack the patch metadata; unadvertised, it uses its compiled-in types as with older servers.
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function schemaName(rt: ResourceType): string {
  if (!rt.group) return `io.k8s.api.core.${rt.version}.${rt.kind}`;
  return `${rt.group.split('.').reverse().join('.')}.${rt.version}.${rt.kind}`;
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

const param = (name: string, description: string) => ({ name, in: 'query', description, schema: { type: 'string', uniqueItems: true } });
const WRITE_PARAMS = [
  param('dryRun', 'When present, changes are validated but not stored. Only "All" is accepted.'),
  param('fieldManager', 'Name of the actor making the change.'),
  param('fieldValidation', 'Ignore, Warn or Strict: what to do with fields the schema does not know.'),
];
const READ_PARAMS = [param('labelSelector', 'Label selector.'), param('fieldSelector', 'Field selector.'), param('resourceVersion', 'Resource version.'), param('watch', 'Watch for changes.')];

function operations(rt: ResourceType, ref: string): Record<string, unknown> {
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  const content = (types: string[]) => Object.fromEntries(types.map((t) => [t, { schema: { $ref: ref } }]));
  const response = { 200: { description: 'OK', content: { 'application/json': { schema: { $ref: ref } } } } };
  const op = (action: string, extra: Record<string, unknown> = {}) => ({
    operationId: `${action}${rt.kind}`, 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk, responses: response, ...extra,
  });
  const base = `/${gvPath(rt.group, rt.version)}${rt.namespaced ? '/namespaces/{namespace}' : ''}/${rt.plural}`;
  return {
    [base]: {
      get: op('list', { parameters: READ_PARAMS }),
      post: op('post', { parameters: WRITE_PARAMS, requestBody: { content: content(['application/json', 'application/yaml']) } }),
      delete: op('deletecollection', { parameters: READ_PARAMS }),
    },
    [`${base}/{name}`]: {
      get: op('get'),
      put: op('put', { parameters: WRITE_PARAMS, requestBody: { content: content(['application/json', 'application/yaml']) } }),
      patch: op('patch', { parameters: [...WRITE_PARAMS, param('force', 'Force an apply over conflicts.')], requestBody: { content: content(PATCH_TYPES) } }),
      delete: op('delete', { parameters: WRITE_PARAMS.slice(0, 1) }),
    },
  };
}

export class OpenApi {
  private docs = new Map<string, string>();
  private index?: string;

  constructor(private readonly registry: ResourceRegistry, private readonly schemas: (rt: ResourceType) => Record<string, unknown> | undefined) {
    registry.onChange(() => { this.docs.clear(); this.index = undefined; });
  }

  private groupVersions(): Map<string, ResourceType[]> {
    const out = new Map<string, ResourceType[]>();
    for (const rt of this.registry.all()) {
      const key = gvPath(rt.group, rt.version);
      if (!out.has(key)) out.set(key, []);
      out.get(key)!.push(rt);
    }
    return out;
  }

  /** The document of one group/version, e.g. "apis/config.openshift.io/v1"; undefined when nothing is served there. */
  document(gv: string): string | undefined {
    let doc = this.docs.get(gv);
    if (doc) return doc;
    const types = this.groupVersions().get(gv);
    if (!types) return undefined;
    const schemas: Record<string, unknown> = {};
    let paths: Record<string, unknown> = {};
    for (const rt of types) {
      const name = schemaName(rt);
      const schema = this.schemas(rt) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      schemas[name] = { ...schema, 'x-kubernetes-group-version-kind': [{ group: rt.group, version: rt.version, kind: rt.kind }] };
      paths = { ...paths, ...operations(rt, `#/components/schemas/${name}`) };
    }
    doc = JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.25.0' }, paths, components: { schemas } });
    this.docs.set(gv, doc);
    return doc;
  }

  indexDocument(): string {
    if (this.index) return this.index;
    const paths: Record<string, unknown> = {};
    for (const gv of [...this.groupVersions().keys()].sort()) {
      const hash = createHash('sha256').update(this.document(gv)!).digest('hex').slice(0, 32).toUpperCase();
      paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
    }
    this.index = JSON.stringify({ paths });
    return this.index;
  }
}
