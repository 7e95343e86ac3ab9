/**
 * JSON schemas of what openshift-tests decodes from an extension binary, written from OTE's Go types at
 * openshift-eng/openshift-tests-extension commit 2fd5b2fa422100cb3df9fa9a2feac691fc10b628:
 *   pkg/extension/types.go                  Extension, Source, Component, Suite, Image (`info`, `images`)
 *   pkg/extension/extensiontests/types.go   ExtensionTestSpec, Resources, Isolation, EnvironmentSelector (`list`),
 *                                           ExtensionTestResult, Details (`run-test`)
 *   pkg/dbtime/time.go                      DBTime, the format of startTime / endTime
 *   pkg/util/sets/set.go                    Set[string] = map[string]struct{}: labels encode as {"label":{}}
 *
 * Every object has `additionalProperties: false`: a field the Go struct lacks is what json.Decoder's
 * DisallowUnknownFields refuses. Types are the Go field types (string, int, []string, map). A field without
 * `omitempty` is required, because Go's encoder always writes it and our output must read like it. `null` is allowed
 * only where Go itself would write it (a nil slice, map or pointer). Lifecycle, Result and ClusterStability are Go
 * strings; their enums are the values OTE defines (`var LifecycleBlocking Lifecycle = "blocking"`, ...).
 */
import { Ajv, type ValidateFunction } from 'ajv';

const nullable = <T extends object>(schema: T) => ({ anyOf: [schema, { type: 'null' }] });
const stringList = { type: 'array', items: { type: 'string' } };
const int = { type: 'integer' };

/** pkg/extension/types.go: Image (Mapped is a *Image). */
const image = {
  type: 'object',
  additionalProperties: false,
  required: ['index', 'registry', 'name', 'version'],
  properties: {
    index: int,
    registry: { type: 'string' },
    name: { type: 'string' },
    version: { type: 'string' },
    mapped: { $ref: '#/definitions/image' },
  },
};

/** pkg/extension/types.go: Suite. TestTimeout is a *time.Duration: integer nanoseconds. */
const suite = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    parents: stringList,
    qualifiers: stringList,
    count: int,
    parallelism: int,
    clusterStability: { enum: ['Stable', 'Disruptive'] },
    testTimeout: int,
  },
};

/** pkg/extension/types.go: Extension (its private fields are not encoded). */
export const EXTENSION_SCHEMA = {
  $id: 'ote-extension',
  definitions: { image },
  type: 'object',
  additionalProperties: false,
  required: ['apiVersion', 'source', 'component', 'suites', 'images'],
  properties: {
    apiVersion: { type: 'string' },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['commit', 'build_date', 'git_tree_state'],
      properties: { commit: { type: 'string' }, build_date: { type: 'string' }, git_tree_state: { type: 'string' }, source_url: { type: 'string' } },
    },
    component: {
      type: 'object',
      additionalProperties: false,
      required: ['product', 'type', 'name'],
      properties: { product: { type: 'string' }, type: { type: 'string' }, name: { type: 'string' } },
    },
    suites: nullable({ type: 'array', items: suite }),
    images: nullable({ type: 'array', items: { $ref: '#/definitions/image' } }),
  },
};

/** `images`: json.Marshal of []Image. */
export const IMAGES_SCHEMA = { $id: 'ote-images', definitions: { image }, ...nullable({ type: 'array', items: { $ref: '#/definitions/image' } }) };

/** pkg/extension/extensiontests/types.go: ExtensionTestSpec (Run, RunParallel, Timeout and the hooks are `json:"-"` or private). */
export const TEST_SPEC_SCHEMA = {
  $id: 'ote-test-spec',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'labels', 'resources', 'source', 'lifecycle', 'environmentSelector'],
  properties: {
    name: { type: 'string' },
    originalName: { type: 'string' },
    // sets.Set[string]: each label maps to an empty struct, which has no fields to carry.
    labels: nullable({ type: 'object', additionalProperties: { type: 'object', additionalProperties: false } }),
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    resources: {
      type: 'object',
      additionalProperties: false,
      required: ['isolation'],
      properties: {
        isolation: {
          type: 'object',
          additionalProperties: false,
          properties: { mode: { type: 'string' }, conflict: stringList, taint: stringList, toleration: stringList },
        },
        memory: { type: 'string' },
        duration: { type: 'string' },
        timeout: { type: 'string' },
      },
    },
    source: { type: 'string' },
    codeLocations: stringList,
    lifecycle: { enum: ['blocking', 'informing'] },
    // A struct: `omitempty` never drops it, so Go always writes it.
    environmentSelector: {
      type: 'object',
      additionalProperties: false,
      properties: { include: { type: 'string' }, exclude: { type: 'string' } },
    },
  },
};

/** dbtime.DBTime's UnmarshalJSON parses exactly this layout ("2006-01-02 15:04:05.000000 UTC"). */
const DB_TIME = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6} UTC$';

/** pkg/extension/extensiontests/types.go: ExtensionTestResult (StartTime, EndTime are *dbtime.DBTime; Duration int64 ms). */
export const TEST_RESULT_SCHEMA = {
  $id: 'ote-test-result',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'lifecycle', 'duration', 'startTime', 'endTime', 'result', 'output'],
  properties: {
    name: { type: 'string' },
    lifecycle: { enum: ['blocking', 'informing'] },
    duration: int,
    startTime: nullable({ type: 'string', pattern: DB_TIME }),
    endTime: nullable({ type: 'string', pattern: DB_TIME }),
    result: { enum: ['passed', 'skipped', 'failed'] },
    output: { type: 'string' },
    error: { type: 'string' },
    details: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['name', 'value'], properties: { name: { type: 'string' }, value: {} } },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: true });

export const validators = {
  extension: ajv.compile(EXTENSION_SCHEMA),
  images: ajv.compile(IMAGES_SCHEMA),
  testSpec: ajv.compile(TEST_SPEC_SCHEMA),
  testResult: ajv.compile(TEST_RESULT_SCHEMA),
};

/** The validator's errors as one line per error, for an assertion message. */
export function schemaErrors(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}
