// The releases of the reference: what a profile says about them (release-set.ts), how they are built and pushed as
// real images (recipes.ts, ensure.ts), and how the cluster reads them back from the registry (read.ts, os-content.ts).
export { ensureReleases, LOCAL_CACHE_REPOSITORY, ReleaseBuildError, type EnsureReleasesOptions, type EnsureReleasesResult } from './ensure.js';
export { CONTENT_HASH_LABEL, OS_REPOSITORY, PAYLOAD_REPOSITORY, releaseMetadata } from './recipes.js';
export { readReleaseInfo } from './read.js';
export { baseOsImage, baseOsTag, extensionsImage, isOsImageTag, machineOsContent, type ReleaseInfo } from './release-info.js';
export { previousVersions, sameReleases, withOsImageTags, type OsImageTags, type ReleaseDefinition, type ReleaseSet } from './release-set.js';
export { readOsImageContent, parseOsRelease, parseRpmDb, RPMDB_PATH, type OsImageContent, type InstalledRpm } from './os-content.js';
