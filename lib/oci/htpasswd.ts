// htpasswd entries for the registry's basic auth. Distribution accepts bcrypt only; it checks the hash on every
// request, so the cost is the lowest bcrypt allows: these are random per-cluster passwords on loopback, not
// passwords a person chose.
import bcrypt from 'bcryptjs';

const COST = 4;

/** One `user:bcrypt-hash` line. */
export function htpasswdLine(username: string, password: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(username)) throw new Error(`htpasswd user names are letters, digits and . _ -, got ${JSON.stringify(username)}`);
  return `${username}:${bcrypt.hashSync(password, COST)}\n`;
}
