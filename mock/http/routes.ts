/**
 * Every route the server answers, in the order they are tried. To serve a new path, write its handler in
 * handlers/ and add one entry here; a new subresource of a kind is an entry in handlers/resources.ts instead.
 */
import type { Route } from './context.js';
import { isAccessReviewPath, serveAccessReview } from './handlers/access-reviews.js';
import { isClientWorkPath, serveClientWork } from './handlers/client-work.js';
import { isDiscoveryPath, serveDiscovery } from './handlers/discovery.js';
import { isPodAttachPath, isPodExecPath, servePodAttach, servePodExec } from './handlers/exec.js';
import { isHealthPath, isOpenApiV2Path, isOpenApiV3Path, isVersionPath, serveHealth, serveOpenApiV2, serveOpenApiV3, serveVersion } from './handlers/meta.js';
import { isResourcePath, serveResource } from './handlers/resources.js';
import { isSelfSubjectReviewPath, serveSelfSubjectReview } from './handlers/self-subject-review.js';

export const ROUTES: readonly Route[] = [
  { name: 'health', public: true, matches: isHealthPath, handle: serveHealth },
  { name: 'version', matches: isVersionPath, handle: serveVersion },
  { name: 'openapi/v2', matches: isOpenApiV2Path, handle: serveOpenApiV2 },
  { name: 'openapi/v3', matches: isOpenApiV3Path, handle: serveOpenApiV3 },
  { name: 'discovery', matches: isDiscoveryPath, handle: serveDiscovery },
  { name: 'client work', matches: isClientWorkPath, handle: serveClientWork },
  // before the resource tree: an upgrade the kubelet answers, not a subresource verb
  { name: 'pods/exec', matches: isPodExecPath, handle: servePodExec },
  { name: 'pods/attach', matches: isPodAttachPath, handle: servePodAttach },
  // before the resource tree: reviews are answered from the authorizer, never stored
  { name: 'access reviews', matches: isAccessReviewPath, handle: serveAccessReview },
  { name: 'self subject review', matches: isSelfSubjectReviewPath, handle: serveSelfSubjectReview },
  { name: 'resources', matches: isResourcePath, handle: serveResource },
];
