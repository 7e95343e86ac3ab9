/**
 * What the API server's own controllers (garbage collection, namespace deletion) ask of the verbs. They delete
 * through the API, so finalizers, foreground deletion and the namespace's own rules apply to what they delete too.
 */
import type { KubeObject, ResourceType } from './resources.js';

export interface Deleter {
  /** DELETE of one object with a propagation policy; throws what the verb throws (404 when it is gone already). */
  delete(rt: ResourceType, namespace: string | undefined, name: string, propagationPolicy: 'Background' | 'Foreground'): void;
  /** Removes an object whose finalizers are all gone, for good (its dependents are then collected). */
  remove(rt: ResourceType, obj: KubeObject): void;
}
