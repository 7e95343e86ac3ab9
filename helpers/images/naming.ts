// Names and labels of the images a run builds: a tag unique per run and case (`<repo>:<run-id>-<case-id>`, never
// reused, because every node pulls on its own and a moving tag would let nodes boot different images), and the labels
// QE puts on them (`quay.expires-after` so a forgotten image expires, the case and run ids to find and clean them).
import { ImageHelperError } from '../../lib/oci/errors.js';
import { RunIdLabel } from '../types.js';

export const LABEL_EXPIRES_AFTER = 'quay.expires-after';
export const LABEL_CASE_ID = 'ocp-e2e.io/case-id';

/** Makes a string safe as part of a tag: lower case letters, digits, `.`, `_`, `-`. */
function tagPart(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
}

/** The repository without a tag (`quay.io/me/os:old` -> `quay.io/me/os`; a registry's port is kept). */
export function withoutTag(repository: string): string {
  return repository.replace(/:[^/:]+$/, '');
}

/** `<repository>:<run-id>-<case-id>`; throws when the result is not a valid tag (over 128 characters). */
export function runImageTag(repository: string, runId: string, caseId: string): string {
  const repo = withoutTag(repository); // a tag given with the repository would be replaced anyway
  const tag = `${tagPart(runId)}-${tagPart(caseId)}`;
  if (tag.length > 128 || !/^[a-z0-9_][a-z0-9._-]*$/.test(tag)) {
    throw new ImageHelperError(`Cannot make an image tag from run id "${runId}" and case id "${caseId}": "${tag}" is not a valid tag`);
  }
  return `${repo}:${tag}`;
}

/** Labels for an image built by a test case. */
export function testImageLabels(opts: { runId: string; caseId: string; expiresAfter?: string }): Record<string, string> {
  return {
    [LABEL_EXPIRES_AFTER]: opts.expiresAfter ?? '24h',
    [RunIdLabel]: opts.runId,
    [LABEL_CASE_ID]: opts.caseId,
  };
}
