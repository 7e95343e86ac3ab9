/**
 * How systemd records that a unit is enabled: a link to the unit in `<target>.wants/` (or `.requires/`) for each
 * target its [Install] section names, under /etc/systemd/system; a masked unit is a link to /dev/null there. This is
 * what `systemctl enable`/`mask` write on a node and what the image's `systemctl is-enabled` reads back.
 */

/**
 * The targets a unit's [Install] section hooks it into (WantedBy= → `.wants`, RequiredBy= → `.requires`);
 * undefined when the unit has no [Install] section with either (systemctl calls it static).
 */
export function installTargets(unitText: string): Array<{ target: string; kind: 'wants' | 'requires' }> | undefined {
  const out: Array<{ target: string; kind: 'wants' | 'requires' }> = [];
  let section = '';
  for (const raw of unitText.split('\n')) {
    const line = raw.trim();
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = header[1]!;
    const entry = /^(WantedBy|RequiredBy)\s*=\s*(.*)$/.exec(line);
    if (section !== 'Install' || !entry) continue;
    for (const target of entry[2]!.split(/\s+/).filter(Boolean)) out.push({ target, kind: entry[1] === 'WantedBy' ? 'wants' : 'requires' });
  }
  return out.length ? out : undefined;
}

/** Where the enablement links of `unit` live, for the targets of its [Install] section. */
export function enablementLinks(unit: string, unitText: string): string[] {
  return (installTargets(unitText) ?? []).map(({ target, kind }) => `/etc/systemd/system/${target}.${kind}/${unit}`);
}
