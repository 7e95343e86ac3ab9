/**
 * CustomResourceDefinitions as data: checks a CRD object the way the real server does (enough to catch mistakes),
 * turns it into served resource types, and fills in its status (Established, NamesAccepted).
 */
import { errors, type StatusCause } from './errors.js';
import { ALL_VERBS, type KubeObject, type PrinterColumn, type ResourceType } from './resources.js';
import { makeSchemaCheck } from './schema.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function validateCrd(crd: KubeObject): void {
  const causes: StatusCause[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const need = (cond: boolean, field: string, message = 'Required value') => {
    if (!cond) causes.push({ reason: message === 'Required value' ? 'FieldValueRequired' : 'FieldValueInvalid', field, message });
  };
  need(typeof spec.group === 'string' && spec.group.length > 0, 'spec.group');
  need(typeof names.plural === 'string' && DNS_LABEL.test(names.plural), 'spec.names.plural');
  need(typeof names.kind === 'string' && names.kind.length > 0, 'spec.names.kind');
  need(spec.scope === 'Cluster' || spec.scope === 'Namespaced', 'spec.scope',
    `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"`);
  need(Array.isArray(spec.versions) && spec.versions.length > 0, 'spec.versions');
  if (names.plural && spec.group) {
    need(crd.metadata.name === `${names.plural}.${spec.group}`, 'metadata.name',
      `Invalid value: ${JSON.stringify(crd.metadata.name)}: must be spec.names.plural+"."+spec.group`);
  }
  if (Array.isArray(spec.versions)) {
    const storage = spec.versions.filter((v: any) => v?.storage === true).length;
    need(storage === 1, 'spec.versions', `Invalid value: ${JSON.stringify(spec.versions.map((v: any) => v?.name))}: must have exactly one version marked as storage version`);
    spec.versions.forEach((v: any, i: number) => need(typeof v?.name === 'string' && v.name.length > 0, `spec.versions[${i}].name`));
  }
  if (causes.length) throw errors.invalid('apiextensions.k8s.io', 'CustomResourceDefinition', crd.metadata.name ?? '', causes);
}

/** The resource types a CRD serves: one per served version, all sharing storage. */
export function resourceTypesOf(crd: KubeObject): ResourceType[] {
  const spec = crd.spec;
  const names = spec.names;
  const storageVersion: string = spec.versions.find((v: any) => v.storage)?.name ?? spec.versions[0].name;
  return spec.versions.filter((v: any) => v.served !== false).map((v: any): ResourceType => {
    const printerColumns = (v.additionalPrinterColumns ?? spec.additionalPrinterColumns ?? []) as any[];
    const columns: PrinterColumn[] = printerColumns.length
      ? printerColumns.map((c) => ({
        name: c.name, type: c.type ?? 'string', format: c.format, description: c.description, priority: c.priority ?? 0,
        jsonPath: c.jsonPath ?? c.JSONPath,
      }))
      : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    const schema = v.schema?.openAPIV3Schema ?? spec.validation?.openAPIV3Schema;
    return {
      group: spec.group,
      version: v.name,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural,
      singular: names.singular ?? names.kind.toLowerCase(),
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      namespaced: spec.scope === 'Namespaced',
      statusSubresource: Boolean((v.subresources ?? spec.subresources)?.status),
      builtin: false,
      tracksGeneration: true,
      columns,
      schema: schema ? makeSchemaCheck(schema) : undefined,
      openAPIV3Schema: schema,
      storageKey: `${spec.group}/${names.plural}`,
      storageVersion,
      crdName: crd.metadata.name,
      verbs: ALL_VERBS,
    };
  });
}

/** Status the API server itself writes on a CRD once its names are accepted and it is served. */
export function establishedStatus(crd: KubeObject, now: string): Record<string, unknown> {
  const names = crd.spec.names;
  const previous = (crd.status?.conditions ?? []) as Array<{ type: string; lastTransitionTime?: string }>;
  const since = (type: string) => previous.find((c) => c.type === type)?.lastTransitionTime ?? now;
  return {
    acceptedNames: { listKind: `${names.kind}List`, singular: names.kind.toLowerCase(), ...names },
    conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: since('NamesAccepted') },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: since('Established') },
    ],
    storedVersions: [crd.spec.versions.find((v: any) => v.storage)?.name ?? crd.spec.versions[0].name],
  };
}
