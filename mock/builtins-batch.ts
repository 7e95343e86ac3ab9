/**
 * batch/v1 Job as kube-apiserver serves it (kube 1.31+, OpenShift 4.18+): the columns of kube's job printer, what the
 * job strategy does on create (defaults, the generated selector and the labels it puts on the pod template, a
 * restartPolicy of Never or OnFailure) and that a DELETE naming no propagation policy orphans the Job's pods.
 * The server only stores Jobs; whoever plays kube-controller-manager (the reference's job controller) runs them.
 */
import { age, builtin, formatSelector } from './builtin-type.js';
import { humanDuration } from './table.js';
import { errors } from './errors.js';
import type { KubeObject, PrinterColumn, ResourceType } from './resources.js';

/** The labels the job strategy puts on the template and selects by (batch/v1 types.go, labelPrefix). */
export const JOB_LABELS = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
} as const;

/** The warning kube-apiserver's Job REST storage adds to a DELETE without a propagation policy. */
export const JOB_ORPHAN_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

const isTrue = (job: KubeObject, type: string): boolean =>
  ((job.status?.conditions ?? []) as Array<{ type: string; status: string }>).some((c) => c.type === type && c.status === 'True');

/** STATUS as kube's printJob words it (a column since kube 1.30): terminal conditions first, then the interim ones. */
function jobStatus(job: KubeObject): string {
  if (isTrue(job, 'Complete')) return 'Complete';
  if (isTrue(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (isTrue(job, 'Suspended')) return 'Suspended';
  if (isTrue(job, 'FailureTarget')) return 'FailureTarget';
  if (isTrue(job, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** COMPLETIONS: `succeeded/completions`, or `succeeded/1 of parallelism` for a work queue without completions. */
function jobCompletions(job: KubeObject): string {
  const succeeded = Number(job.status?.succeeded ?? 0);
  if (job.spec?.completions !== undefined && job.spec?.completions !== null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = Number(job.spec?.parallelism ?? 1);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** DURATION: from startTime to completionTime, or to now while the Job runs; empty before it starts. */
function jobDuration(job: KubeObject, now: Date): string {
  const start = Date.parse(String(job.status?.startTime ?? ''));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(String(job.status?.completionTime ?? ''));
  return humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
}

const jobColumns: PrinterColumn[] = [
  { name: 'Status', type: 'string', description: 'Status of the job.', value: jobStatus },
  { name: 'Completions', type: 'string', description: 'The completion status of the job.', value: jobCompletions },
  { name: 'Duration', type: 'string', description: 'Time required to complete the job.', value: jobDuration },
  age,
  { name: 'Containers', type: 'string', priority: 1, value: (o) => (o.spec?.template?.spec?.containers ?? []).map((c: { name: string }) => c.name).join(',') },
  { name: 'Images', type: 'string', priority: 1, value: (o) => (o.spec?.template?.spec?.containers ?? []).map((c: { image: string }) => c.image).join(',') },
  { name: 'Selector', type: 'string', priority: 1, value: (o) => formatSelector(o.spec?.selector) },
];

/**
 * The job strategy's PrepareForCreate and the defaulting of batch/v1: status cleared, completions and parallelism 1
 * when neither is given, backoffLimit 6, the generated selector on the Job's uid and its labels on the template.
 */
function prepareJob(job: KubeObject): void {
  const spec = (job.spec ??= {});
  const restartPolicy = spec.template?.spec?.restartPolicy;
  if (restartPolicy !== 'Never' && restartPolicy !== 'OnFailure') {
    const message = restartPolicy === undefined ? 'Required value: valid values: "OnFailure", "Never"' : `Unsupported value: "${restartPolicy}": supported values: "OnFailure", "Never"`;
    throw errors.invalid('batch', 'Job', job.metadata.name ?? '', [{ reason: restartPolicy === undefined ? 'FieldValueRequired' : 'FieldValueNotSupported', field: 'spec.template.spec.restartPolicy', message }]);
  }
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  if (!spec.podFailurePolicy) spec.podReplacementPolicy ??= 'TerminatingOrFailed';
  if (!spec.manualSelector) {
    const uid = job.metadata.uid!;
    spec.selector = { matchLabels: { [JOB_LABELS.controllerUid]: uid } };
    const template = (spec.template ??= {});
    const metadata = (template.metadata ??= {});
    metadata.labels = {
      ...(metadata.labels ?? {}),
      [JOB_LABELS.controllerUid]: uid,
      [JOB_LABELS.jobName]: job.metadata.name,
      [JOB_LABELS.legacyControllerUid]: uid,
      [JOB_LABELS.legacyJobName]: job.metadata.name,
    };
  }
  job.status = {};
}

export function batchResourceTypes(): ResourceType[] {
  return [
    builtin({
      group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true, categories: ['all'], statusSubresource: true, tracksGeneration: true,
      columns: jobColumns, onCreate: prepareJob, defaultPropagation: 'Orphan', deleteWarning: JOB_ORPHAN_WARNING,
    }),
  ];
}
