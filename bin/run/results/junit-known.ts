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

/** Text as an attribute value: markup characters and line breaks as character references. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\n\r\t]/g, (c) => `&#${c.codePointAt(0)};`);
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
    // The failure goes; what the test printed (system-out) stays.
    const rest = body!.replace(/<(failure|error)\b[^>]*?(?:\/>|>[\s\S]*?<\/\1>)/g, '').trim();
    return `<testcase${attrs}>\n      <skipped message="${escapeXml(message)}"/>${rest ? `\n      ${rest}` : ''}\n    </testcase>`;
  });
  return { xml: marked ? recount(out) : xml, marked };
}

/** Sets the counts of every testsuite (and of the testsuites root) to the elements it holds. */
function recount(xml: string): string {
  const total = { failures: 0, errors: 0, skipped: 0 };
  const withSuites = xml.replace(/(<testsuite\b[^>]*>)([\s\S]*?<\/testsuite>)/g, (_, open: string, inner: string) => {
    const cases = [...inner.matchAll(TESTCASE)].map((m) => m[2] ?? '');
    const counts = {
      failures: cases.filter((b) => /<failure\b/.test(b)).length,
      errors: cases.filter((b) => /<error\b/.test(b)).length,
      skipped: cases.filter((b) => /<skipped\b/.test(b)).length,
    };
    total.failures += counts.failures;
    total.errors += counts.errors;
    total.skipped += counts.skipped;
    return setCounts(open, counts) + inner;
  });
  return withSuites.replace(/<testsuites\b[^>]*>/, (open) => setCounts(open, total));
}

function setCounts(tag: string, counts: Record<string, number>): string {
  let out = tag;
  for (const [name, value] of Object.entries(counts)) out = out.replace(new RegExp(`\\b${name}="\\d+"`), `${name}="${value}"`);
  return out;
}
