/** Spec 2.x configs converted to 3.2 the way the MCO does it. */
import { IgnitionError } from './errors.js';
import { byName, byPath, type Obj } from './schema.js';

/**
 * A 2.x config (files, units, users) as the MCO converts it to 3.2 (removeIgnDuplicateFilesUnitsUsers, then the
 * library's translation): duplicate files and units keep the last entry and come out last-first; every user must be
 * `core`, and their keys end up on one user, deduplicated; files default to overwrite and keep their mode.
 */
export function convertSpec2(raw: Obj): Obj {
  const out: Obj = { ignition: { version: '3.2.0' } };
  const files = lastFirst(((raw.storage as Obj | undefined)?.files ?? []) as Obj[], byPath);
  if (files.length > 0) {
    out.storage = {
      files: files.map((file) => {
        const contents = (file.contents ?? {}) as Obj;
        const converted: Obj = { path: file.path ?? '', overwrite: file.overwrite ?? true, contents: { source: contents.source ?? '' } };
        if (contents.compression) (converted.contents as Obj).compression = contents.compression; // a string in spec 2: empty means none
        if (file.mode !== undefined) converted.mode = file.mode;
        return converted;
      }),
    };
  }
  const units = lastFirst(((raw.systemd as Obj | undefined)?.units ?? []) as Obj[], byName);
  if (units.length > 0) {
    out.systemd = {
      units: units.map((unit) => {
        const converted: Obj = { name: unit.name ?? '' };
        if (unit.contents !== undefined) converted.contents = unit.contents;
        const enabled = unit.enabled ?? unit.enable;
        if (enabled !== undefined) converted.enabled = enabled;
        if (unit.mask) converted.mask = true;
        const dropins = (unit.dropins ?? []) as Obj[];
        if (dropins.length > 0) converted.dropins = dropins.map((d) => ({ name: d.name ?? '', ...(d.contents !== undefined ? { contents: d.contents } : {}) }));
        return converted;
      }),
    };
  }
  const users = ((raw.passwd as Obj | undefined)?.users ?? []) as Obj[];
  if (users.length > 0) {
    const newest = users[users.length - 1]!;
    const keys = [...((newest.sshAuthorizedKeys ?? []) as string[])];
    for (let i = users.length - 1; i >= 0; i--) {
      if (users[i]!.name !== 'core') throw new IgnitionError(`unexpected user with name: ${String(users[i]!.name ?? '')}. Only core user is supported`);
      if (i < users.length - 1) keys.push(...((users[i]!.sshAuthorizedKeys ?? []) as string[]));
    }
    const converted: Obj = { name: 'core' };
    const unique = [...new Set(keys)];
    if (unique.length > 0) converted.sshAuthorizedKeys = unique;
    if (newest.passwordHash !== undefined) converted.passwordHash = newest.passwordHash;
    out.passwd = { users: [converted] };
  }
  return out;
}

/** Entries with a repeated key keep the last one; the result lists them from the last to the first. */
function lastFirst(items: Obj[], key: (item: Obj) => string): Obj[] {
  const seen = new Set<string>();
  const out: Obj[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const k = key(items[i]!);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(items[i]!);
  }
  return out;
}
