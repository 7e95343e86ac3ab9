/** One line per object for the upgrade timeline: the view of its kind, said the same way as in every wait message. */
import type { ApiObject, ClusterOperator, ClusterVersion, MachineConfigPool, Node } from '../types.js';
import { operatorLine } from './cluster-operator.js';
import { clusterVersionLine } from './cluster-version.js';
import { nodeLine } from './node.js';
import { poolLine } from './pool.js';

export function summarize(kind: string, object: ApiObject): string {
  switch (kind) {
    case 'ClusterVersion':
      return clusterVersionLine(object as ClusterVersion);
    case 'ClusterOperator':
      return operatorLine(object as ClusterOperator);
    case 'MachineConfigPool':
      return poolLine(object as MachineConfigPool);
    case 'Node':
      return nodeLine(object as Node);
    default:
      return '';
  }
}
