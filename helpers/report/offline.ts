/**
 * The HTML report must open from disk with no network and call nobody. Allure's awesome plugin (3.18) always writes a
 * Google Analytics tag into index.html (`analyticsEnable: true` is hard-coded, no option turns it off), so the
 * generated page is post-processed here, then checked: any reference to another host left in the page is an error.
 */

/** A `<script>…</script>` element, with or without a body. */
const SCRIPT_ELEMENT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** True for the analytics tag and its inline set-up (gtag/dataLayer), whatever id or host they carry. */
function isAnalytics(attributes: string, body: string): boolean {
  return /googletagmanager|google-analytics/i.test(attributes) || /\bgtag\s*\(|\bdataLayer\b/.test(body);
}

/** Removes the analytics scripts from a report page; everything else is kept byte for byte. */
export function stripAnalytics(html: string): string {
  return html.replace(SCRIPT_ELEMENT, (element, attributes: string, body: string) => (isAnalytics(attributes, body) ? '' : element));
}

/**
 * The URLs a page would load from other hosts when opened: `src`/`href` attributes and CSS `url()` / `@import` that
 * name a scheme with a host (http, https, ws, ftp) or are protocol-relative (`//host/...`). `data:` and relative paths
 * are the page's own. Inlined bundles (data: URLs) are decoded and scanned for the same attribute and url() forms.
 */
export function remoteReferences(html: string): string[] {
  const found = new Set<string>();
  const scan = (text: string) => {
    for (const m of text.matchAll(/\b(?:src|href)\s*=\s*["']\s*((?:[a-z][a-z0-9+.-]*:)?\/\/[^"'\s]+)/gi)) {
      if (!/^(?:data|blob|about|javascript):/i.test(m[1]!)) found.add(m[1]!);
    }
    for (const m of text.matchAll(/(?:url\(\s*["']?|@import\s+["'])((?:https?:|wss?:|ftp:)?\/\/[^"')\s]+)/gi)) found.add(m[1]!);
  };
  scan(html);
  for (const m of html.matchAll(/data:text\/css;base64,([A-Za-z0-9+/=]+)/g)) scan(Buffer.from(m[1]!, 'base64').toString('utf8'));
  return [...found];
}

/** Strips the analytics and refuses a page that would still load something from another host. */
export function makeOffline(html: string): string {
  const page = stripAnalytics(html);
  const remote = remoteReferences(page);
  if (remote.length) {
    throw new Error(`the generated report would load from other hosts: ${remote.slice(0, 5).join(', ')}${remote.length > 5 ? ` and ${remote.length - 5} more` : ''}`);
  }
  return page;
}
