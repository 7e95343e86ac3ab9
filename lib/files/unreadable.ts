/**
 * Why a file the user gave cannot be read, said so the user can act. A kubeconfig or pull secret is mode 0600 and its
 * owner's (`oc login`, the installer and podman write them so); mounted into a container that runs as another uid,
 * node's bare `EACCES: permission denied, open '…'` does not say that the way out is to run the container as the
 * file's owner, which is what images/ocp-e2e/README.md's lines do.
 */
import { statSync } from 'node:fs';

/** The reason to print after "cannot read the … FILE: ": node's message, plus owner, mode and the way out on EACCES. */
export function unreadableReason(path: string, error: unknown): string {
  const message = (error as Error).message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EACCES' && code !== 'EPERM') return message;
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  let owner = '';
  try {
    const s = statSync(path);
    owner = `the file is mode ${(s.mode & 0o777).toString(8).padStart(4, '0')}, owned by uid ${s.uid} gid ${s.gid}`;
  } catch {
    // the folder itself may be closed to us: then there is nothing more to say about the file
  }
  const self = uid === undefined ? '' : `this process runs as uid ${uid} gid ${gid}`;
  const facts = [owner, self].filter(Boolean).join('; ');
  return (
    `${message}${facts ? ` (${facts})` : ''}. Run as the file's owner: in a container, ` +
    '`docker run --user "$(id -u):$(id -g)"` or, with rootless podman, `podman run --userns=keep-id` ' +
    '(images/ocp-e2e/README.md); or make the file readable by this user'
  );
}
