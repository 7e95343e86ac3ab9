// Docker's credential helpers (`docker-credential-<name> get|list`, the protocol of docker/docker-credential-helpers):
// a docker config may keep a registry's credentials in one (credHelpers per registry, credsStore for all). They are
// run here synchronously, with a short timeout, and what they print is never shown: only whether they answered.
import { execFileSync } from 'node:child_process';

/** The environment a helper runs in (its PATH finds it; keychain helpers need HOME, DBUS_SESSION_BUS_ADDRESS...). */
export type HelperEnv = NodeJS.ProcessEnv;

export type HelperAnswer =
  | { kind: 'ok'; value: unknown; auth?: { username: string; password: string } }
  /** The helper ran and has nothing for that registry: no problem, no entry. */
  | { kind: 'none' }
  | { kind: 'failed'; why: string };

const HELPER_TIMEOUT_MS = 10_000;

/** Runs `docker-credential-<helper> <action>` with `input` on stdin. */
export function runCredentialHelper(helper: string, action: 'get' | 'list', input: string, env: HelperEnv): HelperAnswer {
  if (!/^[\w.-]+$/.test(helper)) return { kind: 'failed', why: `"${helper}" is not a helper name` };
  const program = `docker-credential-${helper}`;
  let stdout: string;
  try {
    stdout = execFileSync(program, [action], { input, env, encoding: 'utf8', timeout: HELPER_TIMEOUT_MS, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string; signal?: string; status?: number };
    if (e.code === 'ENOENT') return { kind: 'failed', why: `${program} is not on PATH` };
    if (e.signal === 'SIGTERM') return { kind: 'failed', why: `${program} ${action} did not answer within ${HELPER_TIMEOUT_MS / 1000} s` };
    // The helpers' own words for "nothing stored for that server" (docker-credential-helpers' ErrCredentialsNotFound).
    if (/credentials not found/i.test(String(e.stdout ?? ''))) return { kind: 'none' };
    return { kind: 'failed', why: `${program} ${action} exited ${e.status ?? 'abnormally'}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return { kind: 'failed', why: `${program} ${action} did not print JSON` };
  }
  if (action === 'list') return { kind: 'ok', value: value && typeof value === 'object' ? value : {} };
  const answer = value as { Username?: unknown; Secret?: unknown };
  if (typeof answer.Username !== 'string' || typeof answer.Secret !== 'string' || !answer.Secret) {
    return { kind: 'failed', why: `${program} get did not print {"Username": ..., "Secret": ...}` };
  }
  // `<token>` is docker's marker of an OAuth identity token, which only docker's own login flow can use.
  if (answer.Username === '<token>') return { kind: 'failed', why: `${program} holds an identity token, which the suite cannot use; log in with a user name and password or token` };
  return { kind: 'ok', value, auth: { username: answer.Username, password: answer.Secret } };
}
