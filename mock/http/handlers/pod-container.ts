/**
 * Which container of a pod a pods/log or pods/exec request means, with the real API server's 400s when it cannot tell
 * (an unknown name, or several containers and none named).
 */
import { errors } from '../../errors.js';
import type { KubeObject } from '../../resources.js';

export function chooseContainer(pod: KubeObject, asked: string): string {
  const names = ((pod.spec?.containers ?? []) as Array<{ name: string }>).map((c) => c.name);
  const initNames = ((pod.spec?.initContainers ?? []) as Array<{ name: string }>).map((c) => c.name);
  const podName = pod.metadata.name!;
  if (asked) {
    if (![...names, ...initNames].includes(asked)) throw errors.badRequest(`container ${asked} is not valid for pod ${podName}`);
    return asked;
  }
  if (names.length === 1) return names[0]!;
  if (names.length === 0) throw errors.badRequest(`a container name must be specified for pod ${podName}`);
  const init = initNames.length ? ` or one of the init containers: [${initNames.join(' ')}]` : '';
  throw errors.badRequest(`a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]${init}`);
}
