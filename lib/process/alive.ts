/** Whether a process of this pid exists: signal 0 checks without signalling; EPERM means it exists but is another user's. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
