/**
 * Marks test cases of a JUnit file (mocha's xunit format) as known issues: the failure becomes a `<skipped>` whose
 * message names the bug, which Jenkins and Prow show as not failed, and the suite's counts follow.
 */
const TESTCASE = /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g;

function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(attrs);
  return m ? unescapeXml(m[1]!) : undefined;
}

export function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, ref: string) => {
    if (ref[0] === '#') return String.fromCodePoint(ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[ref.toLowerCase()]!;
  });
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.codePointAt(0)};`);
}

/** The full titles (`classname name`) of the test cases that failed in a JUnit file. */
export function failedCases(xml: string): string[] {
  return [...xml.matchAll(TESTCASE)]
    .filter((m) => /<(failure|error)\b/.test(m[2] ?? ''))
    .map((m) => `${attribute(m[1]!, 'classname') ?? ''} ${attribute(m[1]!, 'name') ?? ''}`.trim());
}

/** Replaces the failure of each named test case with `<skipped message=...>`; returns the new XML and how many changed. */
export function markKnownIssues(xml: string, messages: Map<string, string>): { xml: string; marked: number } {
  let marked = 0;
  const out = xml.replace(TESTCASE, (whole, attrs: string, body: string | undefined) => {
    const title = `${attribute(attrs, 'classname') ?? ''} ${attribute(attrs, 'name') ?? ''}`.trim();
    const message = messages.get(title);
    if (message === undefined || !/<(failure|error)\b/.test(body ?? '')) return whole;
    marked++;
    return `<testcase${attrs}><skipped message="${escapeXml(message)}"/><system-out>${escapeXml(message)}</system-out></testcase>`;
  });
  if (marked === 0) return { xml, marked };
  // mocha counts failed tests in `errors` (and leaves `failures` 0); move the marked ones to `skipped`.
  const recounted = out.replace(/<testsuite\b[^>]*>/, (tag) => {
    const num = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(tag)?.[1] ?? 0);
    const set = (t: string, name: string, value: number) => (new RegExp(`\\b${name}="\\d+"`).test(t) ? t.replace(new RegExp(`\\b${name}="\\d+"`), `${name}="${value}"`) : t);
    const fromErrors = Math.min(marked, num('errors'));
    let t = set(tag, 'errors', num('errors') - fromErrors);
    t = set(t, 'failures', Math.max(0, num('failures') - (marked - fromErrors)));
    return set(t, 'skipped', num('skipped') + marked);
  });
  return { xml: recounted, marked };
}
