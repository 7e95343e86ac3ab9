// Which auth file holds a run's registry credentials when none is given, as podman, skopeo and docker look for theirs:
// $REGISTRY_AUTH_FILE (podman, skopeo, buildah, oc), podman's own ${XDG_RUNTIME_DIR}/containers/auth.json and
// ${XDG_CONFIG_HOME:-~/.config}/containers/auth.json, then docker's $DOCKER_CONFIG/config.json (which replaces
// ~/.docker for docker) or ~/.docker/config.json. The first that exists is the one: files are not merged, so one
// file, named at the start of the run, holds every credential the run uses.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export interface AuthFileChoice {
  path: string;
  /** Why this file: `--pull-secret`, `REGISTRY_AUTH_FILE`, `XDG_RUNTIME_DIR`, `XDG_CONFIG_HOME`, `DOCKER_CONFIG` or `~/.docker`. */
  source: string;
}

/** The candidates in the order they are tried, each with the reason it would be chosen. */
export function authFileCandidates(env: NodeJS.ProcessEnv, home = env.HOME || homedir()): AuthFileChoice[] {
  const out: AuthFileChoice[] = [];
  if (env.REGISTRY_AUTH_FILE) out.push({ path: env.REGISTRY_AUTH_FILE, source: 'REGISTRY_AUTH_FILE' });
  if (env.XDG_RUNTIME_DIR) out.push({ path: path.join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json'), source: 'XDG_RUNTIME_DIR' });
  out.push({ path: path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'containers', 'auth.json'), source: env.XDG_CONFIG_HOME ? 'XDG_CONFIG_HOME' : '~/.config/containers' });
  if (env.DOCKER_CONFIG) out.push({ path: path.join(env.DOCKER_CONFIG, 'config.json'), source: 'DOCKER_CONFIG' });
  else out.push({ path: path.join(home, '.docker', 'config.json'), source: '~/.docker' });
  return out;
}

/** The file given (--pull-secret), else the first candidate that exists; undefined when there is none. */
export function chooseAuthFile(given: string | undefined, env: NodeJS.ProcessEnv = process.env): AuthFileChoice | undefined {
  if (given) return { path: path.resolve(given), source: '--pull-secret' };
  return authFileCandidates(env).find((c) => existsSync(c.path));
}
