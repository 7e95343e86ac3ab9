// Moved: the registry HTTP API v2 is registry-api.ts (RegistryApi), an image's files image-files.ts (RegistryClient,
// the API with file reads). This re-export only keeps importers that are being changed elsewhere right now building;
// delete it once `git grep -n lib/oci/registry-client` finds nothing.
export { RegistryClient } from './image-files.js';
